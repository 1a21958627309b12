import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { organizations } from './orgs.tables.js';

export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/**
 * Personal access tokens (docs/analysts.md): a user's long-lived credential for one organization, for
 * tools that cannot sign in (Power BI, Excel, scripts). The secret is shown once and never stored: only
 * its SHA-256 (a random 256-bit secret needs no slow hash). The token acts with its user's role in the
 * organization at the time of each request, at most; `read` allows GET and HEAD only.
 */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    scope: text('scope').$type<TokenScope>().notNull(),
    /** The SHA-256 of the secret, hex. */
    secretHash: text('secret_hash').notNull().unique(),
    /** The secret's first characters (`mel_pat_AbC1`), to tell tokens apart in a list. */
    prefix: text('prefix').notNull(),
    /** Null: it does not expire. */
    expiresAt: timestamptz('expires_at'),
    lastUsedAt: timestamptz('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('access_tokens_user_id_idx').on(t.userId, t.createdAt),
    check('access_tokens_scope_check', sql`${t.scope} IN ('read', 'write')`),
  ],
);
