/**
 * Finding 6 of issue 36: a submission's top-level `location` (a respondent's position) is personal data
 * (DECISIONS.md section 13), like an answer of a field marked personal: null for viewers in the list,
 * the CSV export and an indicator report's sources; recorded in the audit log when read in clear, even
 * on a form without personal fields; removed by the erase route and by the retention job.
 */
import { parse } from 'csv-parse/sync';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseExpiredPersonalAnswers } from '../../src/modules/forms/answer-retention.js';
import { formSubmissions } from '../../src/modules/forms/forms.tables.js';
import { NOTHING_PERSONAL } from '../../src/modules/forms/submissions.service.js';
import { ALREADY_ERASED } from '../../src/modules/privacy/index.js';
import { webhookEvents } from '../../src/modules/webhooks/webhooks.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createTeam, type Team } from '../helpers/factories.js';
import {
  answers,
  auditEntriesIn,
  countingFormFor,
  eraseUrl,
  formTargets,
  PERSONAL_FIELDS,
  personalAnswers,
  publishedForm,
  reportOfTargets,
  submissionsCsvUrl,
  submissionsUrl,
  submitUrl,
  type FormJson,
  type FormTargets,
} from '../helpers/forms.js';
import { call, conflictBody, expectError, type Caller } from '../helpers/http.js';

let t: TestApp;

beforeAll(async () => {
  // No worker: the retention runs when the test calls it, and webhook deliveries stay queued.
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { worker: false });
});
afterAll(() => t.close());

/** A phone's fix, 3 m accuracy: where the respondent stood. */
const HERE = { lat: -1.28638, lng: 36.81727, accuracy: 3 };
const HERE_CSV = '-1.28638,36.81727';
const REASON = 'The respondent asked for her position to be erased';
const LOCATION = 3;

/** A form without a field marked personal, counting each submission into the targets' report. */
async function plainForm(team: Team, body: Record<string, unknown> = {}) {
  const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
  const form = await countingFormFor(t.app, team.officer, team.org.id, targets, body);
  return { targets, form };
}

async function submit(form: FormJson, location: unknown, given: Record<string, unknown> = answers()) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: given, location } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function get(url: string, as: Caller) {
  const res = await call(t.app, 'GET', url, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/** Each submission's location as the reader gets it: the list, the CSV export, the report's sources. */
async function locationsSeen(team: Team, targets: FormTargets, form: FormJson, as: Caller) {
  const list = (await get(submissionsUrl(team.org.id, form.id), as)).body as Record<string, unknown>[];
  const csv: string[][] = parse((await get(submissionsCsvUrl(team.org.id, form.id), as)).response.body);
  const reportId = await reportOfTargets(t.app, team.admin, team.org.id, targets);
  const sourcesUrl = `/orgs/${team.org.id}/projects/${targets.project.id}/indicator-reports/${reportId}/sources`;
  const sources = (await get(sourcesUrl, as)).body as Record<string, unknown>[];
  return {
    list: Object.fromEntries(list.map((s) => [s.id, s.location])),
    csv: Object.fromEntries(csv.slice(1).map((row) => [row[0], row[LOCATION]])),
    sources: Object.fromEntries(sources.map((s) => [s.id, s.location])),
    reportId,
  };
}

async function stored(id: string) {
  const [row] = await t.database.db.select().from(formSubmissions).where(eq(formSubmissions.id, id));
  return row!;
}

const erase = (team: Team, form: FormJson, id: string) =>
  call(t.app, 'POST', eraseUrl(team.org.id, form.id, id), { as: team.admin, body: { reason: REASON } });

describe('finding 6: a respondent’s position is personal data', () => {
  it('is null for viewers in the list, the CSV export and the counted sources; given to other roles', async () => {
    const team = await createTeam(t.app, t.database.db);
    const { targets, form } = await plainForm(team);
    const placed = await submit(form, HERE);
    const unplaced = await submit(form, null);

    const viewer = await locationsSeen(team, targets, form, team.viewer);
    expect(viewer.list).toEqual({ [placed]: null, [unplaced]: null });
    expect(viewer.csv).toEqual({ [placed]: '', [unplaced]: '' });
    expect(viewer.sources).toEqual({ [placed]: null, [unplaced]: null });

    for (const as of [team.officer, team.admin]) {
      const seen = await locationsSeen(team, targets, form, as);
      expect(seen.list).toEqual({ [placed]: HERE, [unplaced]: null });
      expect(seen.csv).toEqual({ [placed]: HERE_CSV, [unplaced]: '' });
      expect(seen.sources).toEqual({ [placed]: HERE, [unplaced]: null });
    }
  });

  it("records an officer's read in clear, even on a form without personal fields; not a viewer's", async () => {
    const team = await createTeam(t.app, t.database.db);
    const { targets, form } = await plainForm(team);
    const placed = await submit(form, HERE);
    await submit(form, null);

    await locationsSeen(team, targets, form, team.viewer);
    expect(await auditEntriesIn(t.database.db, team.org.id)).toEqual([]);

    const { reportId } = await locationsSeen(team, targets, form, team.officer);
    const entries = await auditEntriesIn(t.database.db, team.org.id);
    const recorded = entries.map(({ action, route, subjectIds, count, actorId, details }) => ({
      action,
      route,
      subjectIds,
      count,
      actorId,
      details,
    }));
    const by = team.officer.id;
    // Only the submission that carries a position: the other has nothing personal to record.
    expect(recorded).toEqual([
      {
        action: 'read',
        route: 'GET /orgs/:orgId/forms/:id/submissions',
        subjectIds: [placed],
        count: 1,
        actorId: by,
        details: { formId: form.id },
      },
      {
        action: 'export',
        route: 'GET /orgs/:orgId/forms/:id/submissions.csv',
        subjectIds: [],
        count: 1,
        actorId: by,
        details: { formId: form.id },
      },
      {
        action: 'read',
        route: 'GET /orgs/:orgId/projects/:projectId/indicator-reports/:id/sources',
        subjectIds: [placed],
        count: 1,
        actorId: by,
        details: { indicatorReportId: reportId },
      },
    ]);
  });

  it('is removed by the erase route, also on a form without personal fields; 409 once nothing is left', async () => {
    const team = await createTeam(t.app, t.database.db);
    const { targets, form } = await plainForm(team);
    const placed = await submit(form, HERE);
    const unplaced = await submit(form, null);

    const res = await erase(team, form, placed);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: placed, location: null, answers: answers() });
    const row = await stored(placed);
    expect([row.location, row.answers, row.counted]).toEqual([null, answers(), true]);
    expect(row.personalErasedAt).toBeInstanceOf(Date);
    expect((await locationsSeen(team, targets, form, team.admin)).list[placed]).toBeNull();

    expectError(await erase(team, form, placed), conflictBody(ALREADY_ERASED.form_submission));
    // Neither a personal field nor a position: nothing to erase, nothing recorded.
    expectError(await erase(team, form, unplaced), conflictBody(NOTHING_PERSONAL));
    expect((await stored(unplaced)).personalErasedAt).toBeNull();
    const erasures = (await auditEntriesIn(t.database.db, team.org.id)).filter((e) => e.action === 'erase');
    expect(erasures.map((entry) => entry.subjectIds)).toEqual([[placed]]);

    // On a form with personal fields, the position goes with the personal answers.
    const project = targets.project.id;
    const consent = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project,
      fields: PERSONAL_FIELDS,
    });
    const both = await submit(consent, HERE, personalAnswers());
    expect((await erase(team, consent, both)).body).toMatchObject({ location: null });
    expect([(await stored(both)).location, (await stored(both)).answers]).toEqual([
      null,
      { source: 'well', village: 'Kisumu East', consent: true },
    ]);
  });

  it('is removed by the retention job with the personal answers, and recorded', async () => {
    const team = await createTeam(t.app, t.database.db);
    const NOW = new Date('2026-06-30T12:00:00.000Z');
    const daysAgo = (days: number) => new Date(NOW.getTime() - days * 24 * 60 * 60 * 1000);
    const { form } = await plainForm(team, { personalDataRetentionDays: 30 });
    const old = await submit(form, HERE);
    const oldUnplaced = await submit(form, null);
    const recent = await submit(form, HERE);
    const dated = async (ids: string[], at: Date) =>
      t.database.db.update(formSubmissions).set({ submittedAt: at }).where(inArray(formSubmissions.id, ids));
    await dated([old, oldUnplaced], daysAgo(31));
    await dated([recent], daysAgo(2));

    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(1);
    expect([(await stored(old)).location, (await stored(old)).personalErasedAt]).toEqual([null, NOW]);
    expect([(await stored(oldUnplaced)).personalErasedAt, (await stored(recent)).location]).toEqual([
      null,
      HERE,
    ]);
    const entries = await auditEntriesIn(t.database.db, team.org.id);
    expect(entries.map(({ action, subjectIds }) => ({ action, subjectIds }))).toEqual([
      { action: 'retention_erase', subjectIds: [old] },
    ]);
    expect(await eraseExpiredPersonalAnswers(t.database.db, NOW)).toBe(0);
  });

  it('an erased submission cannot keep a position (the database refuses it)', async () => {
    const team = await createTeam(t.app, t.database.db);
    const { form } = await plainForm(team);
    const placed = await submit(form, HERE);
    await expect(
      t.database.db
        .update(formSubmissions)
        .set({ personalErasedAt: new Date() })
        .where(eq(formSubmissions.id, placed)),
    ).rejects.toThrow();
  });

  it('never reaches a webhook: form_submission.created carries no position', async () => {
    const team = await createTeam(t.app, t.database.db);
    const { form } = await plainForm(team);
    const hook = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks`, {
      as: team.admin,
      body: { url: 'http://127.0.0.1:9/hooks/location', events: ['form_submission.created'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const id = await submit(form, HERE);
    const events = await t.database.db
      .select({ body: webhookEvents.body })
      .from(webhookEvents)
      .where(eq(webhookEvents.orgId, team.org.id));
    expect(events).toHaveLength(1);
    expect(events[0]!.body).toContain(id);
    expect(events[0]!.body).not.toMatch(/"location"|"lat"|"lng"|"accuracy"|-1\.28638|36\.81727/);
  });
});
