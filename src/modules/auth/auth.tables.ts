import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { LOCALES } from '../../lib/i18n/i18n.js';
import { createdAt, id, timestamptz, updatedAt } from '../../db/columns.js';

/** The supported language codes, for the CHECK constraints (src/lib/i18n). */
export const localeList = sql.raw(LOCALES.map((code) => `'${code}'`).join(', '));

export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull().unique(),
    passwordHash: text('password_hash'),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    /** Sessions whose jti was minted before this instant are refused (set by a password reset). */
    sessionsValidAfter: timestamptz('sessions_valid_after'),
    /**
     * When the owner first followed a link sent to the address (verification, reset, invitation) or an
     * identity provider vouched for it; null while unproven. Decides identity-provider linking.
     */
    emailVerifiedAt: timestamptz('email_verified_at'),
    /** The user's own choice of deadline reminders (PATCH /auth/me `notifications.reminders`). */
    remindersEnabled: boolean('reminders_enabled').notNull().default(true),
    /** The language of the user's pages and emails (PATCH /auth/me `locale`); null: not chosen. */
    locale: text('locale'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check('users_locale_check', sql`${t.locale} IN (${localeList})`)],
);

export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: uuid('jti').primaryKey(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('revoked_tokens_expires_at_idx').on(t.expiresAt)],
);

/** A single-use link emailed to a user (reset, verification): only the token's SHA-256 is stored. */
const emailedLink = () => ({
  id: id(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  expiresAt: timestamptz('expires_at').notNull(),
  usedAt: timestamptz('used_at'),
  createdAt: createdAt(),
});

export const passwordResets = pgTable('password_resets', emailedLink(), (t) => [
  index('password_resets_user_id_idx').on(t.userId),
]);

/** Links emailed at registration (and on request) that prove the address: single use, 7 days. */
export const emailVerifications = pgTable('email_verifications', emailedLink(), (t) => [
  index('email_verifications_user_id_idx').on(t.userId),
]);

/**
 * Failed password sign-ins per normalized email, from any address, registered or not (so the delay they
 * cause tells nothing about which emails exist). Shared by every instance through the database.
 */
export const loginFailures = pgTable(
  'login_failures',
  {
    email: text('email').primaryKey(),
    /** Attempts counted, including those still waiting for their turn (a success deletes the row). */
    failures: integer('failures').notNull(),
    /** The turn of the last counted attempt: a waiting attempt's may lie ahead (issue 36, finding 5). */
    lastFailedAt: timestamptz('last_failed_at').notNull(),
  },
  (t) => [index('login_failures_last_failed_at_idx').on(t.lastFailedAt)],
);

/**
 * Sign-ins through an external OpenID Connect provider: the provider (its issuer) and its subject name
 * one user, who may also have a password.
 */
export const externalIdentities = pgTable(
  'external_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The email the provider vouched for when the identity was linked. */
    email: text('email').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.issuer, t.subject] }),
    index('external_identities_user_id_idx').on(t.userId),
  ],
);
