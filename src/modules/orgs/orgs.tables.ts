import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';

export const ORG_ROLES = ['org_admin', 'me_officer', 'reporter', 'viewer'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];
export const orgRole = pgEnum('org_role', ORG_ROLES);

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  code: text('code').notNull().unique(),
  logoUrl: text('logo_url'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const orgMembers = pgTable(
  'org_members',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: orgRole('role').notNull(),
    joinedAt: timestamptz('joined_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] }), index('org_members_user_id_idx').on(t.userId)],
);

export const invitations = pgTable(
  'invitations',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: orgRole('role').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamptz('expires_at').notNull(),
    acceptedAt: timestamptz('accepted_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('invitations_org_id_created_at_idx').on(t.orgId, t.createdAt),
    // One open invitation per address and organization: inviting again replaces it.
    uniqueIndex('invitations_open_email_idx')
      .on(t.orgId, t.email)
      .where(sql`accepted_at IS NULL`),
  ],
);
