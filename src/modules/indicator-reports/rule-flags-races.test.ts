import { eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import { answers, publishedForm, submitUrl } from '../../../test/helpers/forms.js';
import { call, type Call } from '../../../test/helpers/http.js';
import {
  linkIndicator,
  postIndicator,
  postReport,
  reportsUrl,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { transaction, rowsOf } from '../../db/client.js';
import type { ReportFlag } from '../quality/index.js';
import { indicatorReports } from './indicator-reports.tables.js';
import { recheckRuleFlags } from './report-flags.js';
import { lockRuleChecks, MOST_PAIR_LOCKS } from './rule-check-lock.js';

const { t, team } = useSuite();
const org = () => team.org.id;
const testUrl = process.env.TEST_DATABASE_URL;

type Start = { trained: number | null; registered: number };

/**
 * A project with TRAINED (50) and REGISTERED (100) reported in one period and the rule TRAINED <=
 * REGISTERED, which holds (or the values `start` gives; TRAINED null: no report of it yet). Raising
 * TRAINED to 90 holds against 100, lowering REGISTERED to 60 holds against 50: only the two together
 * break it.
 */
async function scene(start: Start = { trained: 50, registered: 100 }) {
  const project = await createProject(t.database.db, org());
  const trained = await postIndicator(t.app, team.admin, org(), { name: 'People trained' });
  const registered = await postIndicator(t.app, team.admin, org(), { name: 'People registered' });
  for (const indicator of [trained, registered]) {
    await linkIndicator(t.app, team.admin, org(), project.id, indicator.id);
  }
  const period = await createPeriod(t.database.db, org(), project.id);
  const rule = await call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
    as: team.officer,
    body: {
      name: 'Trained within registered',
      left: trained.code,
      operator: '<=',
      right: registered.code,
      importance: 'high',
    },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const report = (indicatorId: string, value: number) =>
    postReport(t.app, team.officer, org(), project.id, { indicatorId, reportingPeriodId: period.id, value });
  const reports = {
    trained: start.trained === null ? null : await report(trained.id, start.trained),
    registered: await report(registered.id, start.registered),
  };
  /** The rule's flag on both reports when TRAINED is `left` and REGISTERED `right`. */
  const broken = (left: number, right: number): ReportFlag => ({
    kind: 'rule',
    rule: (rule.body as { id: string }).id,
    message: `Trained within registered: ${trained.code} (${left}) must be <= ${registered.code} (${right})`,
    importance: 'high',
    instruction: null,
    justification: null,
  });
  return { project, period, trained, registered, reports, broken };
}
type Scene = Awaited<ReturnType<typeof scene>>;

const patch = (id: string, value: number) => () =>
  call(t.app, 'PATCH', reportUrl(org(), id), { as: team.officer, body: { value } });

type Writes = (s: Scene) => Promise<(() => Promise<Call>)[]>;

/**
 * The two writes of a scene, each by one write path: TRAINED raised to 90 (or its report created with
 * 90, from no report: `start`) and REGISTERED lowered to 60.
 */
const paths: Record<string, Writes | { start: Start; writes: Writes }> = {
  'two edits': async (s) => [patch(s.reports.trained!.id, 90), patch(s.reports.registered.id, 60)],
  'a report created and an edit': {
    start: { trained: null, registered: 100 },
    writes: async (s) => [
      () =>
        call(t.app, 'POST', reportsUrl(org(), s.project.id), {
          as: team.officer,
          body: { indicatorId: s.trained.id, reportingPeriodId: s.period.id, value: 90 },
        }),
      patch(s.reports.registered.id, 60),
    ],
  },
  'a form submission counted and an edit': async (s) => {
    const form = await publishedForm(t.app, team.officer, org(), {
      projectId: s.project.id,
      indicatorId: s.trained.id,
      reportingPeriodId: s.period.id,
      valueFieldKey: 'household_size',
    });
    const submit = () =>
      call(t.app, 'POST', submitUrl(form.publicToken), {
        body: { answers: answers({ household_size: 40 }) },
      });
    return [submit, patch(s.reports.registered.id, 60)];
  },
  'a bulk import and an edit': async (s) => [
    patch(s.reports.trained!.id, 90),
    () =>
      call(t.app, 'POST', `/orgs/${org()}/indicator-reports/bulk`, {
        as: team.officer,
        body: {
          values: [
            { projectId: s.project.id, indicatorId: s.registered.id, periodId: s.period.id, value: 60 },
          ],
        },
      }),
  ],
};

/** The scene's two reports as stored, TRAINED first. */
async function stored(s: Scene) {
  const rows = await t.database.db
    .select()
    .from(indicatorReports)
    .where(eq(indicatorReports.projectId, s.project.id));
  expect(rows).toHaveLength(2);
  return [s.trained.id, s.registered.id].map((id) => rows.find((row) => row.indicatorId === id)!);
}

/**
 * What checking the rules again now, every value committed, would change (rolled back): nothing, when
 * the stored flags are right.
 */
async function freshlyChanged(s: Scene) {
  const rows = await stored(s);
  let changed = new Map<string, ReportFlag[]>();
  await transaction(t.database.db, async (tx) => {
    changed = await recheckRuleFlags(tx, org(), rows);
    throw new Error('rolled back');
  }).catch((err: Error) => expect(err.message).toBe('rolled back'));
  return changed;
}

describe('rule flags after two writes of a rule’s inputs', () => {
  it('one after the other: both reports flagged, as a fresh check finds them', async () => {
    const s = await scene();
    for (const write of await (paths['two edits'] as Writes)(s)) expect((await write()).status).toBe(200);
    expect((await stored(s)).map((row) => [row.value, row.flags])).toEqual([
      [90, [s.broken(90, 60)]],
      [60, [s.broken(90, 60)]],
    ]);
    expect(await freshlyChanged(s)).toEqual(new Map());
  });

  // Two writes at once need two connections: PGlite has one, so they cannot overlap there.
  describe.skipIf(!testUrl)('at once, on PostgreSQL: each write’s check waits for the other’s commit', () => {
    /** Connections to the database waiting for a lock, read outside a transaction (which keeps its first view). */
    async function waitingOnLocks(name: string) {
      const result = await t.database.db.execute(
        sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = ${name} AND wait_event_type = 'Lock'`,
      );
      return rowsOf<{ n: number }>(result)[0]!.n;
    }

    /**
     * Runs the writes while another connection holds the history table in SHARE mode: each write stops at
     * its history entry, after checking the rules, or before (waiting for the other), until all are seen
     * waiting; then the table is let go. Without a lock around the check, each has read the other's old
     * value by then.
     */
    async function atOnce(work: (() => Promise<Call>)[], { inTurn = false } = {}) {
      const { name } = rowsOf<{ name: string }>(
        await t.database.db.execute(sql`SELECT current_database() AS name`),
      )[0]!;
      const url = new URL(testUrl!);
      url.pathname = `/${name}`;
      const holder = new pg.Client({ connectionString: url.toString() });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE indicator_report_history IN SHARE MODE');
        let waiting = 0;
        const seenWaiting = async (count: number) => {
          for (const until = Date.now() + 3_000; waiting < count && Date.now() < until;) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            waiting = await waitingOnLocks(name);
          }
        };
        // In turn: each write starts once the ones before it are seen waiting.
        const started: Promise<Call>[] = [];
        for (const run of work) {
          started.push(run());
          if (inTurn) await seenWaiting(started.length);
        }
        const answers = Promise.all(started);
        await seenWaiting(work.length);
        await holder.query('COMMIT');
        expect(waiting, 'the writes seen waiting at once').toBe(work.length);
        return await answers;
      } finally {
        await holder.end();
      }
    }

    it.each(Object.keys(paths))('%s: both reports flagged, as a fresh check finds them', async (name) => {
      const path = paths[name]!;
      const { start, writes } = typeof path === 'function' ? { start: undefined, writes: path } : path;
      const s = await scene(start);
      const results = await atOnce(await writes(s));
      for (const res of results) expect([200, 201], JSON.stringify(res.body)).toContain(res.status);
      expect((await stored(s)).map((row) => [row.value, row.flags])).toEqual([
        [90, [s.broken(90, 60)]],
        [60, [s.broken(90, 60)]],
      ]);
      expect(await freshlyChanged(s)).toEqual(new Map());
    });

    it('a flag cleared by one write and set again by the other: both answered, flagged as stored', async () => {
      // Broken at the start (90 > 60): REGISTERED raised to 100 mends it, TRAINED raised to 120 breaks it.
      const s = await scene({ trained: 90, registered: 60 });
      expect((await stored(s)).map((row) => row.flags)).toEqual([[s.broken(90, 60)], [s.broken(90, 60)]]);
      const results = await atOnce([patch(s.reports.registered.id, 100), patch(s.reports.trained!.id, 120)]);
      expect(results.map((res) => res.status)).toEqual([200, 200]);
      expect((await stored(s)).map((row) => [row.value, row.flags])).toEqual([
        [120, [s.broken(120, 100)]],
        [100, [s.broken(120, 100)]],
      ]);
      expect(await freshlyChanged(s)).toEqual(new Map());
    });

    it('holds at most a few advisory locks, however many projects and periods a write covers', async () => {
      const pairs = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          projectId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          reportingPeriodId: '00000000-0000-4000-8000-000000000000',
        }));
      const held = (tx: typeof t.database.db) =>
        tx
          .execute(
            sql`SELECT mode, count(*)::int AS n FROM pg_locks
              WHERE locktype = 'advisory' AND pid = pg_backend_pid() GROUP BY mode ORDER BY mode`,
          )
          .then((result) => rowsOf<{ mode: string; n: number }>(result));
      const few = await transaction(t.database.db, async (tx) => {
        await lockRuleChecks(tx, org(), pairs(MOST_PAIR_LOCKS));
        return held(tx);
      });
      // The organization's lock shared, then one per pair.
      expect(few).toEqual([
        { mode: 'ExclusiveLock', n: MOST_PAIR_LOCKS },
        { mode: 'ShareLock', n: 1 },
      ]);
      const many = await transaction(t.database.db, async (tx) => {
        await lockRuleChecks(tx, org(), pairs(5_000));
        return held(tx);
      });
      expect(many).toEqual([{ mode: 'ExclusiveLock', n: 1 }]);
    });

    it('a rule created while a value is written: the rule is checked against the committed value', async () => {
      // The rule is created while the write of 120 waits at its history entry; its check waits for it.
      const s = await scene({ trained: 50, registered: 60 });
      const results = await atOnce(
        [
          patch(s.reports.trained!.id, 120),
          () =>
            call(t.app, 'POST', `/orgs/${org()}/validation-rules`, {
              as: team.officer,
              body: {
                name: 'Late rule',
                left: s.trained.code,
                operator: '<=',
                right: s.registered.code,
                importance: 'low',
              },
            }),
        ],
        { inTurn: true },
      );
      expect(results.map((res) => res.status)).toEqual([200, 201]);
      const late = (results[1]!.body as { id: string }).id;
      for (const row of await stored(s))
        expect(row.flags.map((flag: ReportFlag) => flag.rule)).toContain(late);
      expect(await freshlyChanged(s)).toEqual(new Map());
    });
  });
});
