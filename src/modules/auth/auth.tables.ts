import { index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from '../../db/columns.js';

export const users = pgTable('users', {
  id: id(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash'),
  firstName: text('first_name').notNull(),
  lastName: text('last_name').notNull(),
  /** Sessions whose jti was minted before this instant are refused (set by a password reset). */
  sessionsValidAfter: timestamptz('sessions_valid_after'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const revokedTokens = pgTable(
  'revoked_tokens',
  {
    jti: uuid('jti').primaryKey(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('revoked_tokens_expires_at_idx').on(t.expiresAt)],
);

export const passwordResets = pgTable(
  'password_resets',
  {
    id: id(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('password_resets_user_id_idx').on(t.userId)],
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
