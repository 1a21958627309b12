import { and, count, desc, eq, getTableColumns } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { organizations } from '../orgs/orgs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { visibleTo, type ProjectVisibility } from '../projects/index.js';
import { reports } from './reports.tables.js';

export type ReportRow = typeof reports.$inferSelect;
export type NewReport = Omit<typeof reports.$inferInsert, 'id' | 'orgId' | 'createdAt' | 'updatedAt'>;
export type ReportChanges = Partial<
  Omit<ReportRow, 'id' | 'orgId' | 'projectId' | 'createdAt' | 'updatedAt'>
>;

/** What a list item shows: no sections, so a long list stays light. */
const listColumns = {
  id: reports.id,
  orgId: reports.orgId,
  title: reports.title,
  projectId: reports.projectId,
  projectName: projects.name,
  reportType: reports.reportType,
  startDate: reports.startDate,
  endDate: reports.endDate,
  status: reports.status,
  shareToken: reports.shareToken,
  shareExpiresAt: reports.shareExpiresAt,
  publishedAt: reports.publishedAt,
  createdAt: reports.createdAt,
  updatedAt: reports.updatedAt,
};

/** Which reports a list shows, besides the projects' visibility. */
export interface ReportFilter {
  projectId?: string;
  status?: ReportRow['status'];
}

const filtered = (orgId: string, filter: ReportFilter, visibility: ProjectVisibility) =>
  and(
    eq(reports.orgId, orgId),
    filter.projectId ? eq(reports.projectId, filter.projectId) : undefined,
    filter.status ? eq(reports.status, filter.status) : undefined,
    visibleTo(orgId, visibility, reports.projectId),
  );

export async function countReports(
  db: Db,
  orgId: string,
  filter: ReportFilter,
  visibility: ProjectVisibility,
): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(reports)
    .where(filtered(orgId, filter, visibility));
  return row?.total ?? 0;
}

/** Newest first, ties by id. */
export function listReports(
  db: Db,
  orgId: string,
  filter: ReportFilter,
  visibility: ProjectVisibility,
  window: Window,
) {
  return inWindow(
    db
      .select(listColumns)
      .from(reports)
      .innerJoin(projects, and(eq(projects.orgId, reports.orgId), eq(projects.id, reports.projectId)))
      .where(filtered(orgId, filter, visibility))
      .orderBy(desc(reports.createdAt), desc(reports.id))
      .$dynamic(),
    window,
  );
}

export async function findReport(db: Db, orgId: string, id: string): Promise<ReportRow | undefined> {
  const [row] = await db
    .select()
    .from(reports)
    .where(and(eq(reports.orgId, orgId), eq(reports.id, id)));
  return row;
}

/** The report row, locked for a change that depends on its state. */
export async function lockReport(db: Db, orgId: string, id: string): Promise<ReportRow | undefined> {
  const [row] = await db
    .select()
    .from(reports)
    .where(and(eq(reports.orgId, orgId), eq(reports.id, id)))
    .for('update');
  return row;
}

/** Whether the report's organization shows data-quality notes on its shared reports (read beside the link). */
const showsNotes = { showQualityNotes: organizations.showQualityNotes };
const ofOrganization = eq(organizations.id, reports.orgId);

/** A shared report, with its organization's showQualityNotes. */
export type SharedRow = ReportRow & { showQualityNotes: boolean };

export async function findReportByShareHash(db: Db, hash: string): Promise<SharedRow | undefined> {
  const [row] = await db
    .select({ ...getTableColumns(reports), ...showsNotes })
    .from(reports)
    .innerJoin(organizations, ofOrganization)
    .where(eq(reports.shareTokenHash, hash));
  return row;
}

/**
 * Only whether a share link is valid, and whether its organization shows quality notes: no content, a
 * small read the primary answers beside the replica's, so turning the setting off hides them at once.
 */
export async function findShareLinkByHash(
  db: Db,
  hash: string,
): Promise<Pick<SharedRow, 'shareToken' | 'shareExpiresAt' | 'showQualityNotes'> | undefined> {
  const [row] = await db
    .select({ shareToken: reports.shareToken, shareExpiresAt: reports.shareExpiresAt, ...showsNotes })
    .from(reports)
    .innerJoin(organizations, ofOrganization)
    .where(eq(reports.shareTokenHash, hash));
  return row;
}

const { content: _content, ...allButContent } = getTableColumns(reports);

/**
 * The new row, its content the one given: sending a snapshot of a megabyte back from the database and
 * parsing it again only cost time (jsonb may order an object's keys differently; nothing else changes).
 */
export async function insertReport(db: Db, orgId: string, values: NewReport): Promise<ReportRow> {
  const [row] = await db
    .insert(reports)
    .values({ ...values, orgId })
    .returning(allButContent);
  return { ...row!, content: values.content };
}

export async function updateReport(
  db: Db,
  orgId: string,
  id: string,
  changes: ReportChanges,
): Promise<ReportRow> {
  const [row] = await db
    .update(reports)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(reports.orgId, orgId), eq(reports.id, id)))
    .returning();
  return row!;
}

export async function deleteReport(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(reports)
    .where(and(eq(reports.orgId, orgId), eq(reports.id, id)))
    .returning({ id: reports.id });
  return rows.length > 0;
}
