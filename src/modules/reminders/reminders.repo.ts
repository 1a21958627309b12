/**
 * The reminder job's SQL. The job serves every organization at once, so these queries span
 * organizations (each row carries its org id, and every join stays within one org); they read periods,
 * indicators, reports, projects' assignments and users, and write only `reminder_sends`.
 */
import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';

/** The reminder job's advisory lock key ("reminders", issue 25): one run at a time across instances. */
const REMINDER_LOCK = 72_160_525;

/**
 * Takes the run's lock for the rest of the transaction; false when another instance holds it (that
 * instance is sending this hour's reminders).
 */
export async function takeRunLock(db: Db): Promise<boolean> {
  const result = await db.execute(sql`SELECT pg_try_advisory_xact_lock(${REMINDER_LOCK}::bigint) AS locked`);
  return rowsOf<{ locked: boolean }>(result)[0]?.locked === true;
}

export type OutstandingState = 'missing' | 'draft' | 'rejected';

/** An indicator report still to be done for a period that is due for a reminder today. */
export interface OutstandingReport {
  orgId: string;
  orgName: string;
  projectId: string;
  projectName: string;
  periodId: string;
  periodLabel: string;
  dueDate: string;
  /** `due_in_<N>` or `overdue`. */
  kind: string;
  indicatorId: string;
  indicatorName: string;
  indicatorCode: string;
  /** Null while the report is missing. */
  reportId: string | null;
  state: OutstandingState;
}

/**
 * Every indicator report still missing, draft or rejected, in the unlocked periods due `today` plus one
 * of their organization's `reminder_days_before`, or due yesterday when the organization sends overdue
 * reminders. Reportable indicators are those linked to the period's project that are not formulas
 * (formulas are computed, never reported). Periods have no due-date index: this runs once an hour over
 * the periods table, which holds a few rows per project.
 */
export async function findOutstandingReports(db: Db, today: string): Promise<OutstandingReport[]> {
  const result = await db.execute(sql`
    WITH due AS (
      SELECT p.id, p.org_id, p.project_id, p.label, p.due_date, o.name AS org_name,
        CASE WHEN p.due_date < ${today}::date THEN 'overdue'
          ELSE 'due_in_' || (p.due_date - ${today}::date) END AS kind
      FROM reporting_periods p
      JOIN organizations o ON o.id = p.org_id
      WHERE NOT p.is_locked
        AND (p.due_date - ${today}::date = ANY (o.reminder_days_before)
          OR (o.overdue_reminder AND p.due_date = ${today}::date - 1))
    )
    SELECT due.org_id AS "orgId", due.org_name AS "orgName",
      due.project_id AS "projectId", pr.name AS "projectName",
      due.id AS "periodId", due.label AS "periodLabel", due.due_date::text AS "dueDate", due.kind,
      i.id AS "indicatorId", i.name AS "indicatorName", i.code AS "indicatorCode",
      r.id AS "reportId", coalesce(r.status::text, 'missing') AS state
    FROM due
    JOIN projects pr ON pr.org_id = due.org_id AND pr.id = due.project_id
    JOIN project_indicators pi ON pi.org_id = due.org_id AND pi.project_id = due.project_id
    JOIN indicators i ON i.org_id = pi.org_id AND i.id = pi.indicator_id AND NOT i.is_formula
    LEFT JOIN indicator_reports r ON r.org_id = due.org_id AND r.project_id = due.project_id
      AND r.indicator_id = i.id AND r.reporting_period_id = due.id
    WHERE r.id IS NULL OR r.status IN ('draft', 'rejected')
    ORDER BY due.due_date, pr.name, due.label, due.id, i.code, i.id`);
  return rowsOf<OutstandingReport>(result);
}

/** A period to remind of, and the reminder's kind. */
export interface DuePeriod {
  orgId: string;
  projectId: string;
  periodId: string;
  kind: string;
}

/** A reminder this run recorded, with where to send it. */
export interface RecordedReminder {
  orgId: string;
  periodId: string;
  kind: string;
  userId: string;
  email: string;
  firstName: string;
  /** The language the user chose (null: none), and the organization's default. */
  locale: string | null;
  orgLocale: string;
}

/**
 * Records a reminder of each period for each of its recipients who has not had this kind for it yet,
 * and returns only the ones recorded now: the key (period, user, kind) keeps every reminder to one,
 * whichever instance runs and however often. Recipients: the organization's me_officers, and its
 * reporters assigned to the period's project; not those who turned reminders off.
 */
export async function recordReminders(db: Db, periods: readonly DuePeriod[]): Promise<RecordedReminder[]> {
  if (periods.length === 0) return [];
  // Four array parameters whatever the number of periods (a VALUES list of four per period would run
  // past PostgreSQL's 65,535 parameters at 16,384 periods). Ids and kinds hold no comma, quote or brace.
  const array = (values: string[]) => `{${values.join(',')}}`;
  const result = await db.execute(sql`
    WITH target (org_id, project_id, period_id, kind) AS (
      SELECT * FROM unnest(
        ${array(periods.map((p) => p.orgId))}::uuid[],
        ${array(periods.map((p) => p.projectId))}::uuid[],
        ${array(periods.map((p) => p.periodId))}::uuid[],
        ${array(periods.map((p) => p.kind))}::text[]
      )
    ),
    recipient AS (
      SELECT t.period_id, m.user_id, t.kind, t.org_id
      FROM target t
      JOIN org_members m ON m.org_id = t.org_id
      JOIN users u ON u.id = m.user_id
      WHERE u.reminders_enabled
        AND (m.role = 'me_officer'
          OR (m.role = 'reporter' AND EXISTS (
            SELECT 1 FROM project_members a
            WHERE a.org_id = t.org_id AND a.project_id = t.project_id AND a.user_id = m.user_id)))
    ),
    inserted AS (
      INSERT INTO reminder_sends (period_id, user_id, kind, org_id)
      SELECT period_id, user_id, kind, org_id FROM recipient
      ON CONFLICT DO NOTHING
      RETURNING period_id, user_id, kind, org_id
    )
    SELECT inserted.org_id AS "orgId", inserted.period_id AS "periodId", inserted.kind,
      inserted.user_id AS "userId", u.email, u.first_name AS "firstName",
      u.locale, o.default_locale AS "orgLocale"
    FROM inserted
    JOIN users u ON u.id = inserted.user_id
    JOIN organizations o ON o.id = inserted.org_id
    ORDER BY u.email, inserted.period_id`);
  return rowsOf<RecordedReminder>(result);
}
