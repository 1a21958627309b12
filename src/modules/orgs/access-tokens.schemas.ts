import { Type } from '@sinclair/typebox';
import { Body, Nullable, NullableString, Text, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import { TOKEN_SCOPES, type TokenScope } from './access-tokens.tables.js';

const Scope = Type.Unsafe<TokenScope>({
  type: 'string',
  enum: [...TOKEN_SCOPES],
  description: '`read`: GET and HEAD only; `write`: every method the user’s role allows',
});

export const AccessTokenCreate = Body(
  {
    name: Text(100),
    orgId: Uuid('The organization the token acts in: one the caller is a member of'),
    scope: Scope,
    expiresAt: Type.Optional(
      NullableString({
        format: 'date-time',
        description: 'A future instant; null: it never expires; left out: 90 days from now',
      }),
    ),
  },
  { title: 'AccessTokenRequest' },
);

const fields = {
  id: Uuid(),
  name: Type.String(),
  orgId: Uuid(),
  scope: Scope,
  prefix: Type.String({
    description: 'The token’s first characters (`mel_pat_` and four), to tell it apart',
  }),
  expiresAt: Nullable(Timestamp({ description: 'null: it never expires' })),
  lastUsedAt: Nullable(Timestamp({ description: 'The last request it authenticated; null: never used' })),
  createdAt: Timestamp(),
};

export const AccessToken = Type.Object(fields, {
  title: 'AccessToken',
  description: 'A personal access token, without its secret',
});

export const CreatedAccessToken = Type.Object(
  {
    ...fields,
    token: Type.String({
      description:
        'The secret, shown this once and never again (only its SHA-256 is kept): `mel_pat_` and 43 characters',
    }),
  },
  { title: 'CreatedAccessToken' },
);
