import { foreignKey, index, integer, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId } from '../../db/columns.js';
import { users } from '../auth/auth.tables.js';
import { projects } from '../projects/projects.tables.js';

/** Documents attached to a project; the bytes live in file storage under `storageKey`. */
export const attachments = pgTable(
  'attachments',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    title: text('title').notNull(),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    storageKey: text('storage_key').notNull(),
    uploadedBy: uuid('uploaded_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'attachments_pkey', columns: [t.orgId, t.id] }),
    unique('attachments_org_id_storage_key_key').on(t.orgId, t.storageKey),
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    index('attachments_org_id_project_id_idx').on(t.orgId, t.projectId, t.createdAt),
  ],
);
