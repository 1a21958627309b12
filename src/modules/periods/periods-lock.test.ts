import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject, type Team } from '../../../test/helpers/factories.js';
import { call, expectError, TIMESTAMP, ADMINS, roleRefused } from '../../../test/helpers/http.js';
import { createPeriod, periodJson, type PeriodRow } from '../../../test/helpers/periods.js';
import { reportingPeriods } from './periods.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const periodUrl = (id: string) => `/orgs/${team.org.id}/reporting-periods/${id}`;
const LOCKED = {
  statusCode: 409,
  message: 'Reporting period is locked',
  error: 'Conflict',
  code: 'period_locked' as const,
};

async function stored(id: string): Promise<PeriodRow> {
  const [row] = await t.database.db.select().from(reportingPeriods).where(eq(reportingPeriods.id, id));
  return row!;
}

/** The feed entries about one period, oldest first. */
async function feedAbout(periodId: string) {
  const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as: team.admin });
  expect(res.status).toBe(200);
  return (res.body as { subject: { id: string } }[]).filter((e) => e.subject.id === periodId).reverse();
}

async function newPeriod(locked = false) {
  const project = await createProject(t.database.db, team.org.id, 'Clean Water');
  const period = await createPeriod(t.database.db, team.org.id, project.id, {
    label: 'Q1 2026',
    ...(locked
      ? { isLocked: true, lockedAt: new Date('2026-04-20T10:00:00.000Z'), lockedBy: team.officer.id }
      : {}),
  });
  return { project, period };
}

const patch = (id: string, as: Team['admin'], body: object) =>
  call(t.app, 'PATCH', periodUrl(id), { as, body });

describe('locking a reporting period', () => {
  it('records lockedAt and lockedBy and a reporting_period.locked feed entry', async () => {
    const { project, period } = await newPeriod();
    const res = await patch(period.id, team.officer, { isLocked: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...periodJson(period),
      isLocked: true,
      lockedAt: expect.stringMatching(TIMESTAMP),
      lockedBy: team.officer.id,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(periodJson(await stored(period.id))).toEqual(res.body);
    expect(await feedAbout(period.id)).toEqual([
      {
        id: expect.any(String),
        type: 'reporting_period.locked',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: team.officer.id, name: 'Omar Officer' },
        projectId: project.id,
        subject: { type: 'reporting_period', id: period.id, label: 'Q1 2026' },
        summary: 'Omar Officer locked reporting period Q1 2026 of Clean Water',
      },
    ]);
  });

  it('shows the lock event to a reporter assigned to the project only', async () => {
    const { project, period } = await newPeriod();
    await patch(period.id, team.admin, { isLocked: true });
    const seen = async () => {
      const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed`, { as: team.reporter });
      return (res.body as { subject: { id: string } }[]).some((e) => e.subject.id === period.id);
    };
    expect(await seen()).toBe(false);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect(await seen()).toBe(true);
  });

  it('applies edits sent with isLocked true before locking, the event naming the new label', async () => {
    const { period } = await newPeriod();
    const res = await patch(period.id, team.admin, {
      label: 'Q1 (final)',
      endDate: '2026-03-30',
      isLocked: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      label: 'Q1 (final)',
      endDate: '2026-03-30',
      isLocked: true,
      lockedBy: team.admin.id,
    });
    const [event] = await feedAbout(period.id);
    expect(event).toMatchObject({
      subject: { type: 'reporting_period', id: period.id, label: 'Q1 (final)' },
      summary: 'Ada Admin locked reporting period Q1 (final) of Clean Water',
    });
  });

  it('treats locking a locked period as a no-op: 200, same lockedAt and lockedBy, no second event', async () => {
    const { period } = await newPeriod();
    const first = await patch(period.id, team.officer, { isLocked: true });
    const again = await patch(period.id, team.admin, { isLocked: true });
    expect([again.status, again.body]).toEqual([200, first.body]);
    expect(await feedAbout(period.id)).toHaveLength(1);
    const empty = await patch(period.id, team.officer, {});
    expect([empty.status, empty.body]).toEqual([200, first.body]);
  });

  it('records one event when the same period is locked by concurrent requests', async () => {
    const { period } = await newPeriod();
    const results = await Promise.all(
      [team.officer, team.admin, team.officer, team.admin].map((user) =>
        patch(period.id, user, { isLocked: true }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.lockedAt)).size).toBe(1);
    expect(await feedAbout(period.id)).toHaveLength(1);
  });

  it('makes a locked period refuse every other change with 409', async () => {
    const { period } = await newPeriod(true);
    for (const body of [
      { label: 'Renamed' },
      { startDate: '2026-01-02' },
      { endDate: '2026-03-30' },
      { dueDate: null },
      { dueDate: '2026-05-01' },
      { label: 'Renamed', isLocked: true },
      { label: 'Q1 2026' },
    ]) {
      expectError(await patch(period.id, team.officer, body), LOCKED);
    }
    expect(periodJson(await stored(period.id))).toEqual(periodJson(period));
  });
});

describe('unlocking a reporting period', () => {
  it('is for org_admins: clears lockedAt and lockedBy and records reporting_period.unlocked', async () => {
    const { project, period } = await newPeriod(true);
    const res = await patch(period.id, team.admin, { isLocked: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...periodJson(period),
      isLocked: false,
      lockedAt: null,
      lockedBy: null,
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(await feedAbout(period.id)).toEqual([
      {
        id: expect.any(String),
        type: 'reporting_period.unlocked',
        occurredAt: expect.stringMatching(TIMESTAMP),
        actor: { id: team.admin.id, name: 'Ada Admin' },
        projectId: project.id,
        subject: { type: 'reporting_period', id: period.id, label: 'Q1 2026' },
        summary: 'Ada Admin unlocked reporting period Q1 2026 of Clean Water',
      },
    ]);
    // Unlocked, it can be edited and deleted again.
    expect((await patch(period.id, team.officer, { label: 'Q1 revised' })).status).toBe(200);
    expect((await call(t.app, 'DELETE', periodUrl(period.id), { as: team.officer })).status).toBe(204);
  });

  it('refuses a me_officer with 403 and leaves the period locked', async () => {
    const { period } = await newPeriod(true);
    expectError(await patch(period.id, team.officer, { isLocked: false }), roleRefused(ADMINS));
    expectError(await patch(period.id, team.officer, { isLocked: false, label: 'X' }), roleRefused(ADMINS));
    expect(periodJson(await stored(period.id))).toEqual(periodJson(period));
    expect(await feedAbout(period.id)).toEqual([]);
  });

  it('must be a request of its own: isLocked false with other fields is 409 and changes nothing', async () => {
    const { period } = await newPeriod(true);
    expectError(await patch(period.id, team.admin, { isLocked: false, label: 'Q1 fixed' }), LOCKED);
    expect(periodJson(await stored(period.id))).toEqual(periodJson(period));
    expect(await feedAbout(period.id)).toEqual([]);
  });

  it('treats isLocked false on an unlocked period as a no-op for any manager (no event)', async () => {
    const { period } = await newPeriod();
    for (const user of [team.officer, team.admin]) {
      const res = await patch(period.id, user, { isLocked: false });
      expect([res.status, res.body]).toEqual([200, periodJson(period)]);
    }
    const edit = await patch(period.id, team.officer, { isLocked: false, label: 'Q1 edited' });
    expect([edit.status, edit.body.label, edit.body.isLocked]).toEqual([200, 'Q1 edited', false]);
    expect(await feedAbout(period.id)).toEqual([]);
  });

  it('lock, unlock, lock again gives three feed entries in order', async () => {
    const { period } = await newPeriod();
    await patch(period.id, team.officer, { isLocked: true });
    await patch(period.id, team.admin, { isLocked: false });
    const relock = await patch(period.id, team.officer, { isLocked: true });
    expect(relock.body).toMatchObject({ isLocked: true, lockedBy: team.officer.id });
    expect((await feedAbout(period.id)).map((e) => (e as unknown as { type: string }).type)).toEqual([
      'reporting_period.locked',
      'reporting_period.unlocked',
      'reporting_period.locked',
    ]);
  });
});
