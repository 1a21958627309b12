import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgEnum, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz, updatedAt } from '../../db/columns.js';
import { localeList, users } from '../auth/auth.tables.js';
import { ORG_ROLES } from '../../http/pipeline/access.js';

export { ORG_ROLES, type OrgRole } from '../../http/pipeline/access.js';

export const orgRole = pgEnum('org_role', ORG_ROLES);

export const organizations = pgTable(
  'organizations',
  {
    id: id(),
    name: text('name').notNull(),
    code: text('code').notNull().unique(),
    logoUrl: text('logo_url'),
    /** The organization's IATI organisation identifier (e.g. `GB-CHC-1234567`); null: not published. */
    iatiRef: text('iati_ref'),
    /** Its IATI OrganisationType code (21: international NGO). */
    iatiOrgType: text('iati_org_type').notNull().default('21'),
    /** Days before a reporting period's due date on which reporters are reminded of what is missing. */
    reminderDaysBefore: integer('reminder_days_before')
      .array()
      .notNull()
      .default(sql`'{7,1}'::integer[]`),
    /** Whether reporters are reminded the day after a due date of what is still missing. */
    overdueReminder: boolean('overdue_reminder').notNull().default(true),
    /** Four eyes: whoever last submitted an indicator report may not approve or reject it. */
    separateApproval: boolean('separate_approval').notNull().default(false),
    /** Whether its shared report pages show the data quality flags of their values and their justifications. */
    showQualityNotes: boolean('show_quality_notes').notNull().default(false),
    /** The organization's age bands (`0-4`, `5-17`, ..., `60+`, `unknown` not stored); null: the contract's. */
    ageBands: text('age_bands').array(),
    /** The language of its shared pages and of its emails to users who chose none (one of LOCALES). */
    defaultLocale: text('default_locale').notNull().default('en'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check('organizations_default_locale_check', sql`${t.defaultLocale} IN (${localeList})`)],
);

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
