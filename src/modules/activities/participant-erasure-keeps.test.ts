import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  erasureUrl,
  householdUrl,
  person,
  postActivity,
  prefillUrl,
  register,
} from '../../../test/helpers/activities.js';
import { createProject } from '../../../test/helpers/factories.js';
import { call } from '../../../test/helpers/http.js';
import {
  linkIndicator,
  postDisaggregation,
  postIndicator,
  reportUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { donorReportUrl, projectReportsUrl } from '../../../test/helpers/reports.js';
import { rowsOf } from '../../db/client.js';
import { feedEvents } from '../feed/feed.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

// Birth dates in the middle of their bands, at the end of Q1 2026 and for years after: erasure keeps
// the band of the day it happens, which the pre-fill then counts for every period.
const CHILD = '2016-06-01';
const YOUTH = '1998-06-01';
const MIDDLE = '1978-06-01';
const ELDER = '1950-06-01';

const erase = async (id: string) => {
  const res = await call(t.app, 'POST', erasureUrl(team.org.id, id), {
    as: team.admin,
    body: { reason: 'Asked by the person' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

describe('what erasure keeps: counts, indicator values, reports, the feed', () => {
  const SEX_CATEGORIES = ['female', 'male', 'other'];
  const AGE_BANDS = ['0-17', '18-35', '36-59', '60+', 'unknown'];

  /** A project with an indicator disaggregated by sex and age band, Q1 2026, and one activity in it. */
  async function countedProject() {
    const project = await createProject(t.database.db, team.org.id, 'Cash for work');
    const indicator = await postIndicator(t.app, team.officer, team.org.id);
    await postDisaggregation(t.app, team.officer, team.org.id, indicator.id, 'Sex', SEX_CATEGORIES);
    await postDisaggregation(t.app, team.officer, team.org.id, indicator.id, 'Age', AGE_BANDS);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, indicator.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const training = await postActivity(t.app, team.officer, team.org.id, project.id, {
      title: 'Savings group training',
    });
    const people = await register(t.app, team.officer, team.org.id, training.id, [
      person({ sex: 'female', dateOfBirth: MIDDLE, attended: true, phone: '+254 733 444 555' }),
      person({ sex: 'male', dateOfBirth: CHILD, attended: true, nationalId: `KE-${randomUUID()}` }),
      person({ sex: 'other', dateOfBirth: null, attended: true }),
      person({ sex: 'male', dateOfBirth: ELDER, attended: true }),
      person({ sex: 'female', dateOfBirth: YOUTH, attended: false }),
    ]);
    const prefill = (attendedOnly = true) =>
      call(t.app, 'POST', prefillUrl(team.org.id, project.id), {
        as: team.officer,
        body: { indicatorId: indicator.id, reportingPeriodId: period.id, attendedOnly },
      });
    return { project, people, prefill };
  }

  /** The stored content of a donor report, as the database holds it. */
  async function storedContent(id: string) {
    const result = await t.database.db.execute(
      sql`SELECT content::text AS content FROM reports WHERE id = ${id}`,
    );
    return rowsOf<{ content: string }>(result)[0]!.content;
  }

  it('leaves pre-filled indicator values and stored reports as they were, and a new pre-fill the same', async () => {
    const { project, people, prefill } = await countedProject();
    // One indicator report per period: counted with everyone registered first, then with attendance.
    const allBefore = await prefill(false);
    expect([allBefore.status, allBefore.body.value]).toEqual([201, 5]);
    const counted = await prefill();
    expect([counted.status, counted.body.value, counted.body.disaggregatedValues]).toEqual([
      200,
      4,
      { female: 1, male: 2, other: 1, '0-17': 1, '18-35': 0, '36-59': 1, '60+': 1, unknown: 1 },
    ]);
    const created = await call(t.app, 'POST', projectReportsUrl(team.org.id, project.id), {
      as: team.officer,
      body: { title: 'Q1 2026', startDate: '2026-01-01', endDate: '2026-03-31' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.sections.activities).toEqual([
      expect.objectContaining({ participantCount: 5, attendedCount: 4 }),
    ]);
    const contentBefore = await storedContent(created.body.id);
    const readReport = () =>
      call(t.app, 'GET', donorReportUrl(team.org.id, created.body.id), { as: team.admin });
    const reportBefore = await readReport();

    for (const registration of people) {
      await erase(registration.participantId);
    }

    const indicatorReport = await call(t.app, 'GET', reportUrl(team.org.id, counted.body.id), {
      as: team.admin,
    });
    const { prefill: _counts, ...countedReport } = counted.body;
    expect([indicatorReport.status, indicatorReport.body]).toEqual([200, countedReport]);
    expect(await storedContent(created.body.id)).toBe(contentBefore);
    expect(await readReport()).toMatchObject({ status: 200, body: reportBefore.body });

    const allAgain = await prefill(false);
    expect([allAgain.status, allAgain.body.value, allAgain.body.disaggregatedValues]).toEqual([
      200,
      allBefore.body.value,
      allBefore.body.disaggregatedValues,
    ]);
    const again = await prefill();
    expect([again.status, again.body.value, again.body.disaggregatedValues]).toEqual([
      200,
      counted.body.value,
      counted.body.disaggregatedValues,
    ]);
  });

  it('has no participant name in the feed, before or after erasure', async () => {
    const own = await createProject(t.database.db, team.org.id, 'Feed');
    const feedActivity = await postActivity(t.app, team.officer, team.org.id, own.id, {
      title: 'Feed check',
    });
    const secret = randomUUID().slice(0, 8);
    const given = { firstName: `Wanjiku${secret}`, lastName: `Kamau${secret}`, nationalId: `KE-${secret}` };
    const [registration] = await register(t.app, team.officer, team.org.id, feedActivity.id, [
      person({ ...given, dateOfBirth: MIDDLE }),
    ]);
    const member = await call(t.app, 'POST', householdUrl(team.org.id, registration!.participantId), {
      as: team.officer,
      body: { name: `Njeri${secret}`, relationship: 'daughter', sex: 'female', age: 9 },
    });
    expect(member.status).toBe(201);
    const feedText = async () => {
      const res = await call(t.app, 'GET', `/orgs/${team.org.id}/activity-feed?limit=100`, {
        as: team.admin,
      });
      expect(res.status).toBe(200);
      const rows = await t.database.db.select().from(feedEvents).where(eq(feedEvents.orgId, team.org.id));
      return JSON.stringify([res.body, rows]);
    };
    const secrets = [secret, ...Object.values(given), member.body.name as string];
    const before = await feedText();
    expect(before).toContain('registered 1 participant in Feed check');
    for (const value of secrets) expect(before).not.toContain(value);
    await erase(registration!.participantId);
    const after = await feedText();
    for (const value of secrets) expect(after).not.toContain(value);
  });
});
