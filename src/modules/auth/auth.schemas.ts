import { Type } from '@sinclair/typebox';
import {
  Body,
  Email,
  Nullable,
  NullableString,
  SINGLE_LINE,
  Text,
  Timestamp,
  Uuid,
} from '../../http/schemas/schemas.js';
import { LOCALES } from '../../lib/i18n/i18n.js';
import { ORG_ROLES } from '../../http/pipeline/access.js';

// `format: password`: a secret, any text (src/http/schemas/validation.ts), and a hidden input in generated forms.
const Password = () =>
  Type.String({
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description: '8 to 128 characters, not the email',
  });
/** A password to check: any length, so that one set under other rules is still compared. */
const GivenPassword = () => Type.String({ format: 'password', minLength: 1, maxLength: 1024 });
const Token = () => Type.String({ minLength: 1, maxLength: 512, ...SINGLE_LINE });
const Name = () => Text(100);

export const User = Type.Object(
  {
    id: Uuid(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    createdAt: Timestamp(),
  },
  { title: 'User' },
);

export const RegisterBody = Body(
  {
    email: Email(),
    password: Password(),
    firstName: Name(),
    lastName: Name(),
  },
  { title: 'Registration' },
);
export const LoginBody = Body({ email: Email(), password: GivenPassword() }, { title: 'Credentials' });

export const TokenBody = Body(
  {
    email: Type.Optional(Email()),
    password: Type.Optional(GivenPassword()),
    organizationId: Type.Optional(Uuid()),
  },
  {
    title: 'TokenRequest',
    description: 'Either `email` and `password`, or (with a valid session) `organizationId` to switch to.',
  },
);

export const TokenResponse = Type.Object(
  {
    accessToken: Type.String(),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires' }),
  },
  { title: 'Token' },
);

export const ForgotPasswordBody = Body({ email: Email() }, { title: 'PasswordResetRequest' });
export const ResetPasswordBody = Body(
  {
    token: Token(),
    password: Password(),
  },
  { title: 'PasswordReset' },
);

export const VerifyEmailBody = Body({ token: Token() }, { title: 'EmailVerification' });

const REMINDERS =
  'Whether deadline reminders are emailed to the user (reporting periods due soon or overdue with ' +
  'indicator reports still to do, in organizations where they report or are an M&E officer).';

export const Notifications = Type.Object(
  { reminders: Type.Boolean({ description: REMINDERS }) },
  { title: 'NotificationSettings' },
);

const LOCALE =
  "The language of the user's pages and emails: en (English), fr (French), es (Spanish), pt " +
  "(Portuguese) or ar (Arabic). Null: not chosen; the pages then follow the browser's languages and " +
  "emails the organization's default language, else English.";

export const UpdateMeBody = Body(
  {
    locale: Type.Optional(
      NullableString({ enum: [...LOCALES, null], description: LOCALE, examples: ['fr'] }),
    ),
    notifications: Type.Optional(
      Body({ reminders: Type.Boolean({ description: REMINDERS }) }, { title: 'NotificationSettingsUpdate' }),
    ),
  },
  { title: 'CurrentUserUpdate', minProperties: 1, description: 'At least one field.' },
);

export const Me = Type.Object(
  {
    ...User.properties,
    emailVerified: Type.Boolean({
      description:
        'Whether the owner proved the address: followed the verification or a reset link, accepted an ' +
        'invitation sent to it, or signed in through the identity provider, which vouched for it.',
    }),
    memberships: Type.Array(
      Type.Object(
        {
          organization: Type.Object({
            id: Uuid(),
            name: Type.String(),
            code: Type.String(),
            logoUrl: Nullable(Type.String()),
          }),
          role: Type.String({ enum: [...ORG_ROLES] }),
        },
        { title: 'Membership' },
      ),
    ),
    notifications: Notifications,
    locale: Nullable(Type.String({ enum: [...LOCALES], description: LOCALE })),
  },
  { title: 'CurrentUser' },
);
