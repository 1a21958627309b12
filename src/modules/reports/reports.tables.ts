import {
  foreignKey,
  index,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  date,
  text,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, rowId, timestamptz, updatedAt } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { projects } from '../projects/projects.tables.js';
import type { Narratives, ReportContent } from './report-snapshot.js';

export const REPORT_TYPES = ['quarterly', 'annual', 'ad_hoc'] as const;
export const reportType = pgEnum('report_type', REPORT_TYPES);
export const REPORT_STATUSES = ['draft', 'published'] as const;
export const reportStatus = pgEnum('report_status', REPORT_STATUSES);

/**
 * An assembled donor report: the data sections are a snapshot taken at creation (or refresh), so a
 * donor reads what was reported then. `selectedPeriodIds` is what the author chose (null for a date
 * range). The share token is kept to show it to the report's editors; the public route finds it by its
 * SHA-256, so looking a token up compares digests, never the token itself.
 */
export const reports = pgTable(
  'reports',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    title: text('title').notNull(),
    reportType: reportType('report_type').notNull(),
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    selectedPeriodIds: uuid('selected_period_ids').array(),
    status: reportStatus('status').notNull().default('draft'),
    narratives: jsonb('narratives').$type<Narratives>().notNull(),
    content: jsonb('content').$type<ReportContent>().notNull(),
    shareToken: uuid('share_token'),
    shareTokenHash: text('share_token_hash'),
    shareExpiresAt: timestamptz('share_expires_at'),
    publishedAt: timestamptz('published_at'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    primaryKey({ name: 'reports_pkey', columns: [t.orgId, t.id] }),
    // The shared link finds a report by its token's digest alone: the digest leads.
    unique('reports_share_token_hash_org_id_key').on(t.shareTokenHash, t.orgId),
    index('reports_org_id_created_at_idx').on(t.orgId, t.createdAt),
    index('reports_org_id_project_id_idx').on(t.orgId, t.projectId),
  ],
);
