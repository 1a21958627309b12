import { and, eq, like } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildCountingTestApp,
  buildTestApp,
  openTestDatabase,
  type TestApp,
} from '../../../test/helpers/app.js';
import { assignProject, createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import { indicatorCode, linkIndicator, postIndicator } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { transaction } from '../../db/client.js';
import { MovableClock } from '../../lib/clock.js';
import { addDays } from '../../lib/dates.js';
import { outboxEmails } from '../mail/mail.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { ReminderJob } from './reminder-job.js';
import { takeRunLock } from './reminders.repo.js';
import { reminderSends } from './reminders.tables.js';

let t: TestApp;
const clock = new MovableClock(new Date('2026-06-01T08:00:00Z'));

beforeAll(async () => {
  t = await buildTestApp({}, { clock });
});
afterAll(() => t.close());
// The job serves every organization of the database: a test's periods must not be reminded of in the next.
afterEach(async () => {
  await t.database.db.update(reportingPeriods).set({ isLocked: true });
});

const setDay = (date: string) => clock.set(new Date(`${date}T08:00:00Z`));

/** A team with one indicator to report in a period of its project due on `dueDate`. */
async function scene(dueDate: string, on: TestApp = t): Promise<Team> {
  const team = await createTeam(on.app, on.database.db);
  const project = await createProject(on.database.db, team.org.id);
  await assignProject(on.database.db, team.org.id, project.id, team.reporter.id);
  const indicator = await postIndicator(on.app, team.officer, team.org.id, { code: indicatorCode('WELLS') });
  await linkIndicator(on.app, team.officer, team.org.id, project.id, indicator.id);
  await createPeriod(on.database.db, team.org.id, project.id, { dueDate });
  return team;
}

/** How many reminder digests each of the team's reporter and officer has had. */
async function digestCounts(team: Team) {
  const counts: number[] = [];
  for (const user of [team.reporter, team.officer]) {
    const rows = await t.database.db
      .select({ id: outboxEmails.id })
      .from(outboxEmails)
      .where(
        and(eq(outboxEmails.recipient, user.email), like(outboxEmails.subject, 'Reporting deadlines:%')),
      );
    counts.push(rows.length);
  }
  return counts;
}

async function kindsSent(team: Team) {
  const rows = await t.database.db
    .select({ kind: reminderSends.kind })
    .from(reminderSends)
    .where(eq(reminderSends.orgId, team.org.id));
  return rows.map((row) => row.kind).sort();
}

const silentLog = (): FastifyBaseLogger => t.app.log.child({});

describe('each reminder is sent once', () => {
  it('across two jobs running at once and a restart; the next day before the due date is a new reminder', async () => {
    const due = '2026-07-15';
    const team = await scene(due);
    setDay(addDays(due, -7));

    // Three instances on one database run at the same moment.
    const others = [1, 2].map(() => new ReminderJob(t.database.db, t.config, clock, silentLog()));
    const counts = await Promise.all([t.app.reminders.runOnce(), ...others.map((job) => job.runOnce())]);
    expect(counts.sort()).toEqual([0, 0, 2]);
    expect(await digestCounts(team)).toEqual([1, 1]);

    // A restarted instance (a new app on the same database) the same day sends nothing again.
    const restarted = await buildTestApp({}, { database: t.database, clock });
    try {
      clock.advance(2 * 60 * 60 * 1000);
      expect(await restarted.app.reminders.runOnce()).toBe(0);
      expect(await digestCounts(team)).toEqual([1, 1]);

      // The day before the due date is another kind of reminder: sent once more, by whichever instance.
      setDay(addDays(due, -1));
      const next = await Promise.all([restarted.app.reminders.runOnce(), t.app.reminders.runOnce()]);
      expect(next.sort()).toEqual([0, 2]);
    } finally {
      await restarted.close();
    }
    expect(await digestCounts(team)).toEqual([2, 2]);
    expect(await kindsSent(team)).toEqual(['due_in_1', 'due_in_1', 'due_in_7', 'due_in_7']);
  });

  // PGlite has one connection: a transaction holding the lock would keep the job waiting for it, not refuse it.
  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'does nothing while another instance holds the lock, without waiting for it',
    async () => {
      const due = '2026-10-20';
      const team = await scene(due);
      setDay(addDays(due, -7));
      await transaction(t.database.db, async (tx) => {
        expect(await takeRunLock(tx)).toBe(true);
        expect(await t.app.reminders.runOnce()).toBe(0);
      });
      expect(await digestCounts(team)).toEqual([0, 0]);
      expect(await t.app.reminders.runOnce()).toBe(2);
      expect(await digestCounts(team)).toEqual([1, 1]);
    },
  );
});

describe('the reminder job', () => {
  it('runs on its own timer once started, and stops with the app', async () => {
    const due = '2027-01-20';
    const team = await scene(due);
    setDay(addDays(due, -1));
    const timed = await buildTestApp(
      {},
      { database: t.database, clock, reminders: { firstRunMs: 10, intervalMs: 50 } },
    );
    try {
      const deadline = Date.now() + 10_000;
      while ((await digestCounts(team)).join() !== '1,1') {
        if (Date.now() > deadline) throw new Error('the timed job sent no reminders');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // Several more runs on the timer: still one each.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await timed.close();
    }
    expect(await digestCounts(team)).toEqual([1, 1]);
    expect(await kindsSent(team)).toEqual(['due_in_1', 'due_in_1']);
  });

  it('takes a few statements per run, not one per period or person', async () => {
    const counting = await buildCountingTestApp();
    try {
      const due = '2027-03-10';
      // Three organizations, each with a period due, a reporter and an officer: six emails.
      for (let i = 0; i < 3; i += 1) await scene(due, counting);
      const job = new ReminderJob(counting.database.db, counting.config, clock, silentLog());
      setDay(addDays(due, -7));
      let emails = 0;
      const statements = await counting.during(async () => {
        emails = await job.runOnce();
      });
      expect(emails).toBe(6);
      // The lock, the outstanding reports, the reminders recorded; then one email each and one feed event
      // per organization (and, on node-postgres, the BEGIN and COMMIT the logger sees too).
      expect(statements).toBeGreaterThanOrEqual(3 + 6 + 3);
      expect(statements).toBeLessThanOrEqual(2 + 3 + 6 + 3);
    } finally {
      await counting.close();
    }
  });

  it('logs a failed run and answers 0 instead of throwing', async () => {
    const closed = await openTestDatabase();
    await closed.close();
    const log = {
      ...silentLog(),
      error: vi.fn(),
      info: vi.fn(),
      debug: vi.fn(),
    } as unknown as FastifyBaseLogger;
    const job = new ReminderJob(closed.db, t.config, clock, log);
    await expect(job.runOnce()).resolves.toBe(0);
    expect(log.error).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.any(Error) }),
      'deadline reminders failed',
    );
  });
});
