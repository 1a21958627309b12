import { BENCH_PII_KEY } from '../bench/seed/participants.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed, type Query, type SeedManifest } from '../bench/seed/index.js';
import type { Database } from '../src/db/client.js';
import { uuidV7Time } from '../src/lib/ids.js';
import { reportValues } from '../src/modules/indicator-reports/report-values.js';
import { checkSubmission } from '../src/modules/forms/answers.js';
import { buildTestApp, openTestDatabase, type TestApp } from './helpers/app.js';
import { call, sessionCookie, type Caller } from './helpers/http.js';

/** A sliver of `small`: every kind of row, in a few seconds even on PGlite. */
const SCALE = 0.05;

/** Raw SQL on the test database's own client (a pg Pool or PGlite): both take `query(sql, params)`. */
function queryOf(database: Database): Query {
  const client = (database.db as unknown as { $client: { query: Query } }).$client;
  return (sql, params) => client.query(sql, params);
}

let first: Database;
let second: Database;
let q: Query;
let manifest: SeedManifest;
let again: SeedManifest;

beforeAll(async () => {
  [first, second] = await Promise.all([openTestDatabase(), openTestDatabase()]);
  q = queryOf(first);
  manifest = await seed({ query: q, size: 'small', scale: SCALE });
  again = await seed({ query: queryOf(second), size: 'small', scale: SCALE });
}, 60_000);
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const tablesOf = async (query: Query) =>
  ((await query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows as any[]).map(
    (row) => row.tablename as string,
  );

/**
 * Sealed values differ on every run (a random nonce each); the national id's blind index, which does
 * not, stands for them.
 */
const SEALED_COLUMNS: Record<string, string[]> = { participants: ['phone', 'national_id'] };

/** Every row of every table, as text, hashed: equal when the two data sets are identical. */
async function checksums(query: Query): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  for (const table of await tablesOf(query)) {
    const row = (SEALED_COLUMNS[table] ?? []).reduce(
      (text, column) => `${text} - '${column}'`,
      'to_jsonb(t)',
    );
    const { rows } = await query(
      `SELECT md5(coalesce(string_agg((${row})::text, '|' ORDER BY (${row})::text), '')) AS sum FROM "${table}" t`,
    );
    sums[table] = (rows[0] as any).sum;
  }
  return sums;
}

describe('bench seed', () => {
  it('counts in the manifest what is in the tables', async () => {
    for (const table of await tablesOf(q)) {
      const { rows } = await q(`SELECT count(*)::int AS n FROM "${table}"`);
      expect({ table, n: (rows[0] as any).n }).toEqual({ table, n: manifest.counts[table] ?? 0 });
    }
    expect(manifest.counts.projects).toBeGreaterThanOrEqual(3);
    expect(manifest.counts.form_submissions).toBeGreaterThan(manifest.csvForm.submissions);
    expect(manifest.bigProject.periodIds).toHaveLength(24);
    expect(manifest.users).toHaveLength(50);
  });

  it('makes the same rows, ids included, from the same seed', async () => {
    expect(await checksums(queryOf(second))).toEqual(await checksums(q));
    const timeless = (m: SeedManifest) => ({ ...m, seededAt: null, seconds: null });
    expect(timeless(again)).toEqual(timeless(manifest));
  });

  it('gives ids in the service’s layout, timed at the row’s creation', async () => {
    for (const table of ['projects', 'indicator_reports', 'participants', 'form_submissions']) {
      const time = table === 'form_submissions' ? 'submitted_at' : 'created_at';
      const { rows } = await q(`SELECT id, ${time} AS at FROM "${table}"`);
      for (const row of rows as any[]) expect(uuidV7Time(row.id)).toBe(new Date(row.at).getTime());
    }
  });

  it('writes every report a history that ends where the report stands', async () => {
    const { rows } = await q(
      `SELECT r.id, r.status, r.value,
              (SELECT count(*)::int FROM indicator_report_history h WHERE h.indicator_report_id = r.id) AS entries,
              (SELECT h.changes->'status'->>'to' FROM indicator_report_history h
                WHERE h.indicator_report_id = r.id AND h.changes ? 'status' ORDER BY h.id DESC LIMIT 1) AS "lastStatus",
              (SELECT (h.changes->'value'->>'to')::float8 FROM indicator_report_history h
                WHERE h.indicator_report_id = r.id AND h.changes ? 'value' ORDER BY h.id DESC LIMIT 1) AS "lastValue"
         FROM indicator_reports r`,
    );
    expect(rows.length).toBe(manifest.counts.indicator_reports);
    for (const row of rows as any[]) {
      expect(row.entries).toBeGreaterThan(0);
      expect({ id: row.id, status: row.lastStatus, value: row.lastValue }).toEqual({
        id: row.id,
        status: row.status,
        value: row.value,
      });
    }
    const { rows: counted } = await q(
      `SELECT count(*)::int AS n FROM indicator_report_history h
         JOIN form_submissions s ON s.id = h.submission_id AND s.indicator_report_id = h.indicator_report_id
        WHERE h.kind = 'counted'`,
    );
    expect((counted[0] as any).n).toBe(
      (await q('SELECT count(*)::int AS n FROM form_submissions WHERE counted')).rows.map((r: any) => r.n)[0],
    );
  });

  it('stores answers and disaggregated values the service itself would accept', async () => {
    const { rows: submissions } = await q(`SELECT f.fields, s.answers, s.location
      FROM form_submissions s JOIN forms f ON f.id = s.form_id`);
    for (const row of submissions as any[]) {
      const { submission, problems } = checkSubmission(row.fields, {
        answers: row.answers,
        location: row.location,
      });
      expect(problems).toEqual([]);
      expect(submission!.answers).toEqual(row.answers);
    }
    const { rows: reports } = await q(`SELECT r.value, r.disaggregated_values AS "disaggregatedValues",
        coalesce((SELECT json_agg(json_build_object('name', d.name, 'categories', d.categories))
          FROM indicator_disaggregations d WHERE d.indicator_id = r.indicator_id), '[]') AS dimensions
      FROM indicator_reports r WHERE r.disaggregated_values <> '{}'::jsonb`);
    expect(reports.length).toBeGreaterThan(0);
    for (const row of reports as any[]) {
      expect(reportValues(row.dimensions, row).value).toBe(row.value);
    }
  });

  describe('through the API', () => {
    let t: TestApp;
    let admin: Caller;
    let org: string;

    beforeAll(async () => {
      // The key the seed sealed phones and national ids under, as bench/run.ts starts the service.
      t = await buildTestApp({ PII_KEY: BENCH_PII_KEY }, { database: first, worker: false });
      const login = await call(t.app, 'POST', '/auth/login', { body: manifest.admin });
      expect(login.status).toBe(200);
      admin = { token: sessionCookie(login)! };
      org = `/orgs/${manifest.orgId}`;
    });
    afterAll(() => t?.close());

    it('reads the big project and its indicators', async () => {
      const project = await call(t.app, 'GET', `${org}/projects/${manifest.bigProject.id}`, { as: admin });
      expect(project.status).toBe(200);
      expect(project.body.code).toBe('BIG');
      const indicators = await call(t.app, 'GET', `${org}/indicators?projectId=${manifest.bigProject.id}`, {
        as: admin,
      });
      expect(indicators.status).toBe(200);
      expect(indicators.body).toHaveLength(manifest.bigProject.indicatorCount);
    });

    it('assembles a report of the big project over its periods', async () => {
      const { bigProject } = manifest;
      const report = await call(t.app, 'POST', `${org}/reports`, {
        as: admin,
        body: {
          title: 'Bench',
          projectId: bigProject.id,
          reportType: 'ad_hoc',
          periodIds: bigProject.periodIds,
        },
      });
      expect(report.status).toBe(201);
      const entries = report.body.sections.indicators as any[];
      expect(entries).toHaveLength(bigProject.indicatorCount);
      expect(entries.filter((entry) => entry.value !== null).length).toBeGreaterThan(entries.length / 2);
    });

    it('sums up every project on the dashboard', async () => {
      const summary = await call(t.app, 'GET', `${org}/dashboard-summary`, { as: admin });
      expect(summary.status).toBe(200);
      expect(summary.body.totalProjects).toBe(manifest.counts.projects);
    });

    it('exports the CSV form, one row per submission', async () => {
      const csv = await call(t.app, 'GET', `${org}/forms/${manifest.csvForm.id}/submissions.csv`, {
        as: admin,
      });
      expect(csv.status).toBe(200);
      expect(parse(csv.response.body)).toHaveLength(1 + manifest.csvForm.submissions);
    });

    it('links every counted submission to its report, whose counted part is their sum', async () => {
      const { rows } = await q(
        `SELECT count(*)::int AS reports,
                count(*) FILTER (WHERE r.counted_value = l.amount AND r.counted_submissions = l.submissions
                                   AND r.value = r.counted_value)::int AS matching
           FROM indicator_reports r
           JOIN (SELECT indicator_report_id, sum(counted_amount) AS amount, count(*)::int AS submissions
                   FROM form_submissions WHERE indicator_report_id IS NOT NULL GROUP BY 1) l
             ON l.indicator_report_id = r.id`,
      );
      const { reports, matching } = rows[0] as { reports: number; matching: number };
      expect(reports).toBeGreaterThan(0);
      expect(matching).toBe(reports);
      const unlinked = await q(
        'SELECT count(*)::int AS n FROM form_submissions WHERE counted AND indicator_report_id IS NULL',
      );
      expect((unlinked.rows[0] as any).n).toBe(0);
    });

    it('gives the busy report its many changes, ending where the report stands', async () => {
      const { busyReport } = manifest;
      expect(busyReport.historyEntries).toBeGreaterThanOrEqual(12);
      const history = await call(
        t.app,
        'GET',
        `${org}/projects/${busyReport.projectId}/indicator-reports/${busyReport.id}/history?page=1&limit=100`,
        { as: admin },
      );
      expect(history.status).toBe(200);
      expect(history.body.meta.total).toBe(busyReport.historyEntries);
      const entries = history.body.data as any[];
      expect(entries[0]).toMatchObject({ kind: 'created', changes: { status: { from: null, to: 'draft' } } });
      expect(entries.filter((entry) => entry.kind === 'edited').length).toBeGreaterThan(entries.length / 2);
      const last = entries.at(-1);
      expect(last).toMatchObject({
        kind: 'approved',
        changes: { status: { from: 'submitted', to: 'approved' } },
      });
      const report = await call(t.app, 'GET', `${org}/projects/${busyReport.projectId}/indicator-reports`, {
        as: admin,
      });
      expect(report.status).toBe(200);
      const row = (report.body as any[]).find((r) => r.id === busyReport.id);
      const lastValue = entries.filter((entry) => entry.changes.value !== undefined).at(-1).changes.value.to;
      expect(row).toMatchObject({ status: 'approved', value: lastValue });
      // Each change starts from where the one before left the report.
      let value: number | null = null;
      for (const entry of entries) {
        if (entry.changes.value === undefined) continue;
        expect(entry.changes.value.from).toBe(value);
        expect(entry.changes.value.to).not.toBe(value);
        value = entry.changes.value.to;
      }
    });

    it('exports the organization to IATI, one activity per project', async () => {
      const xml = await call(t.app, 'GET', `${org}/iati/activities.xml`, { as: admin });
      expect(xml.status).toBe(200);
      expect(xml.headers['content-type']).toMatch(/^application\/xml/);
      expect(xml.response.body.match(/<iati-activity[ >]/g)).toHaveLength(manifest.counts.projects!);
    });

    it('counts a public submission to the intake form into its indicator', async () => {
      const { intake } = manifest;
      const valueOf = async () =>
        (
          (
            await q(
              `SELECT value FROM indicator_reports
                WHERE project_id = $1 AND indicator_id = $2 AND reporting_period_id = $3`,
              [intake.projectId, intake.indicatorId, intake.periodId],
            )
          ).rows[0] as any
        )?.value ?? 0;
      const before = await valueOf();
      const submitted = await call(t.app, 'POST', `/forms/public/${intake.publicToken}/submit`, {
        body: { answers: intake.answers },
      });
      expect(submitted.status).toBe(201);
      const { rows } = await q('SELECT counted FROM form_submissions WHERE id = $1', [submitted.body.id]);
      expect((rows[0] as any).counted).toBe(true);
      expect(await valueOf()).toBe(before + (intake.answers[intake.fieldName] as number));
    });
  });
});
