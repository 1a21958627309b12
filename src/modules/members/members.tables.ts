import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { organizations, orgRole } from '../orgs/orgs.tables.js';

export const invitations = pgTable(
  'invitations',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: orgRole('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamptz('expires_at').notNull(),
    acceptedAt: timestamptz('accepted_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'invitations_pkey', columns: [t.orgId, t.id] }),
    // Accepting finds an invitation by its token alone: the token leads.
    unique('invitations_token_hash_org_id_key').on(t.tokenHash, t.orgId),
    index('invitations_org_id_created_at_idx').on(t.orgId, t.createdAt),
    // One open invitation per address and organization: inviting again replaces it.
    uniqueIndex('invitations_open_email_idx')
      .on(t.orgId, t.email)
      .where(sql`accepted_at IS NULL`),
    // Whether an address is invited anywhere, asked when an account is made under REGISTRATION=invite.
    index('invitations_open_by_email_idx')
      .on(t.email)
      .where(sql`accepted_at IS NULL`),
  ],
);
