import { sql } from 'drizzle-orm';
import { index, pgEnum, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId, updatedAt } from '../../db/columns.js';
import { organizations } from '../orgs/orgs.tables.js';

export const DONOR_TYPES = ['bilateral', 'multilateral', 'private', 'ngo', 'government', 'other'] as const;
export const donorType = pgEnum('donor_type', DONOR_TYPES);

export const donors = pgTable(
  'donors',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    code: text('code').notNull(),
    type: donorType('type').notNull(),
    country: text('country'),
    website: text('website'),
    contactName: text('contact_name'),
    contactEmail: text('contact_email'),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Codes are unique per organization whatever their case.
    uniqueIndex('donors_org_id_lower_code_key').on(t.orgId, sql`lower(${t.code})`),
    primaryKey({ name: 'donors_pkey', columns: [t.orgId, t.id] }),
    index('donors_org_id_name_idx').on(t.orgId, t.name),
  ],
);
