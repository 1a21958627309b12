import { and, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { prepared } from '../../db/prepared.js';
import { inWindow, type Window } from '../../db/window.js';
import { auditLog } from './privacy.tables.js';

export type NewAuditEntry = Omit<typeof auditLog.$inferInsert, 'id' | 'at'>;
export type AuditEntryRow = typeof auditLog.$inferSelect;

/** One entry, the common case (a read): planned once per connection, as it runs on every such read. */
const insertOne = prepared((db) =>
  db
    .insert(auditLog)
    .values({
      orgId: sql.placeholder('orgId'),
      actorId: sql.placeholder('actorId'),
      actorRole: sql.placeholder('actorRole'),
      tokenId: sql.placeholder('tokenId'),
      tokenName: sql.placeholder('tokenName'),
      ip: sql.placeholder('ip'),
      requestId: sql.placeholder('requestId'),
      action: sql.placeholder('action'),
      route: sql.placeholder('route'),
      subjectKind: sql.placeholder('subjectKind'),
      subjectIds: sql.placeholder('subjectIds'),
      count: sql.placeholder('count'),
      details: sql.placeholder('details'),
    })
    .prepare('audit_log_insert'),
);

export async function insertAuditEntries(db: Db, entries: NewAuditEntry[]): Promise<void> {
  if (entries.length === 1) {
    const [entry] = entries as [NewAuditEntry];
    await insertOne(db).execute({
      actorId: null,
      actorRole: null,
      tokenId: null,
      tokenName: null,
      ip: null,
      requestId: null,
      ...entry,
      subjectIds: entry.subjectIds ?? [],
      details: entry.details ?? {},
    });
  } else if (entries.length > 1) {
    await db.insert(auditLog).values(entries);
  }
}

export interface AuditFilter {
  actorId?: string;
  subjectId?: string;
  from?: string;
  to?: string;
}

function matching(orgId: string, filter: AuditFilter): SQL | undefined {
  return and(
    eq(auditLog.orgId, orgId),
    filter.actorId ? eq(auditLog.actorId, filter.actorId) : undefined,
    // The GIN index on subject_ids answers "every entry about this person".
    filter.subjectId ? sql`${auditLog.subjectIds} @> ARRAY[${filter.subjectId}]::uuid[]` : undefined,
    filter.from ? gte(auditLog.at, new Date(filter.from)) : undefined,
    // `at` is kept to the microsecond and shown to the millisecond: `to` takes in its whole millisecond.
    filter.to ? lt(auditLog.at, new Date(Date.parse(filter.to) + 1)) : undefined,
  );
}

export async function countAuditEntries(db: Db, orgId: string, filter: AuditFilter): Promise<number> {
  const [row] = await db.select({ total: count() }).from(auditLog).where(matching(orgId, filter));
  return row?.total ?? 0;
}

/** Newest first, ties by id. */
export function listAuditEntries(db: Db, orgId: string, filter: AuditFilter, window: Window) {
  return inWindow(
    db
      .select()
      .from(auditLog)
      .where(matching(orgId, filter))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .$dynamic(),
    window,
  );
}

/**
 * Deletes the entries older than `retentionSeconds`, the one deletion the table's trigger allows: the
 * retention is set for this transaction only, and the trigger checks each row's age against it.
 */
export async function purgeAuditEntries(db: Db, retentionSeconds: number): Promise<number> {
  return transaction(db, async (tx) => {
    await tx.execute(sql`SELECT set_config('mel.audit_retention', ${`${retentionSeconds} seconds`}, true)`);
    const deleted = await tx
      .delete(auditLog)
      .where(sql`${auditLog.at} < now() - make_interval(secs => ${retentionSeconds})`)
      .returning({ id: auditLog.id });
    return deleted.length;
  });
}
