import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { projects } from '../projects/projects.tables.js';
import { attachments } from './files.tables.js';

const attachmentColumns = {
  id: attachments.id,
  orgId: attachments.orgId,
  projectId: attachments.projectId,
  title: attachments.title,
  fileName: attachments.fileName,
  contentType: attachments.contentType,
  size: attachments.size,
  createdAt: attachments.createdAt,
};

export type AttachmentRow = {
  [K in keyof typeof attachmentColumns]: (typeof attachments.$inferSelect)[K];
};

const ofProject = (orgId: string, projectId: string) =>
  and(eq(attachments.orgId, orgId), eq(attachments.projectId, projectId));

export async function countAttachments(db: Db, orgId: string, projectId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(attachments).where(ofProject(orgId, projectId));
  return row?.total ?? 0;
}

/** The bytes of every attachment of the organization (ORG_FILES_QUOTA). */
export async function attachmentBytes(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<number>`coalesce(sum(${attachments.size}), 0)::float8`.mapWith(Number) })
    .from(attachments)
    .where(eq(attachments.orgId, orgId));
  return row?.bytes ?? 0;
}

export function listAttachments(db: Db, orgId: string, projectId: string, window: Window) {
  return inWindow(
    db
      .select(attachmentColumns)
      .from(attachments)
      .where(ofProject(orgId, projectId))
      .orderBy(desc(attachments.createdAt), desc(attachments.id))
      .$dynamic(),
    window,
  );
}

export async function findAttachment(db: Db, orgId: string, id: string) {
  const [row] = await db
    .select({ ...attachmentColumns, storageKey: attachments.storageKey })
    .from(attachments)
    .where(and(eq(attachments.orgId, orgId), eq(attachments.id, id)))
    .limit(1);
  return row;
}

export async function insertAttachment(
  db: Db,
  orgId: string,
  values: Omit<typeof attachments.$inferInsert, 'id' | 'orgId' | 'createdAt'>,
): Promise<AttachmentRow> {
  const [row] = await db
    .insert(attachments)
    .values({ orgId, ...values })
    .returning(attachmentColumns);
  return row!;
}

/** The storage key of the deleted row, or undefined when there was none in the org. */
export async function deleteAttachment(db: Db, orgId: string, id: string): Promise<string | undefined> {
  const [row] = await db
    .delete(attachments)
    .where(and(eq(attachments.orgId, orgId), eq(attachments.id, id)))
    .returning({ storageKey: attachments.storageKey });
  return row?.storageKey;
}

/** Storage keys of every attachment of a project, or of every project of a program. */
export async function storageKeysUnder(
  db: Db,
  orgId: string,
  under: { projectId: string } | { programId: string },
): Promise<string[]> {
  const rows =
    'projectId' in under
      ? await db
          .select({ key: attachments.storageKey })
          .from(attachments)
          .where(and(eq(attachments.orgId, orgId), eq(attachments.projectId, under.projectId)))
      : await db
          .select({ key: attachments.storageKey })
          .from(attachments)
          .innerJoin(
            projects,
            and(eq(projects.orgId, attachments.orgId), eq(projects.id, attachments.projectId)),
          )
          .where(and(eq(attachments.orgId, orgId), eq(projects.programId, under.programId)));
  return rows.map((row) => row.key);
}
