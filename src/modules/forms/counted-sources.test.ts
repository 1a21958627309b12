import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  answers,
  auditEntriesIn,
  eraseUrl,
  formTargets,
  PERSONAL_FIELDS,
  personalAnswers,
  submitUrl,
  type FormJson,
  countingFormFor,
  reportOfTargets,
  submitAt,
  type FormTargets,
} from '../../../test/helpers/forms.js';
import {
  badRequest,
  badRequestAt,
  call,
  expectError,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  type Caller,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import { act, linkIndicator, postIndicator, postReport } from '../../../test/helpers/indicators.js';
import { formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

type Targets = FormTargets;

const sourcesUrl = (projectId: string, reportId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/indicator-reports/${reportId}/sources`;

const newTargets = () => formTargets(t.app, t.database.db, team.officer, team.org.id);

const countingForm = (targets: Targets, body: Record<string, unknown> = {}) =>
  countingFormFor(t.app, team.officer, team.org.id, targets, body);

const submit = (form: FormJson, given: Record<string, unknown>, at: string) =>
  submitAt(t.app, t.database.db, form, given, at);

const reportOf = (targets: Targets) => reportOfTargets(t.app, team.admin, team.org.id, targets);

async function sources(targets: Targets, reportId: string, as: Caller = team.admin, query = '') {
  const res = await call(t.app, 'GET', `${sourcesUrl(targets.project.id, reportId)}${query}`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** A listed source, as the submissions list shows a submission plus its form and amount. */
const source = (
  id: string,
  at: string,
  form: FormJson,
  amount: number | null,
  given: Record<string, unknown>,
) => ({
  id,
  submittedAt: at,
  location: null,
  counted: true,
  countedReason: null,
  answers: given,
  formId: form.id,
  amount,
});

const T1 = '2026-02-01T09:00:00.000Z';
const T2 = '2026-02-02T09:00:00.000Z';
const T3 = '2026-02-03T09:00:00.000Z';

describe('GET .../indicator-reports/:id/sources', () => {
  it('lists the submissions of every form counted into the report with what each added, oldest first', async () => {
    const targets = await newTargets();
    const counts = await countingForm(targets);
    const sizes = await countingForm(targets, { valueFieldKey: 'household_size' });
    const a = await submit(sizes, answers({ household_size: 5 }), T2);
    const b = await submit(counts, answers(), T1);
    const c = await submit(sizes, answers({ household_size: 2.5 }), T3);
    // The value field unanswered: stored, not counted, not a source.
    await submit(sizes, answers({ household_size: null }), T1);
    const d = await submit(counts, answers({ name: 'Baraka' }), T2);
    const reportId = await reportOf(targets);

    // Ties in submittedAt are ordered by id.
    const [first, second] = [a, d].sort();
    const at = (id: string) => (id === a ? sizes : counts);
    const given = (id: string) => (id === a ? answers({ household_size: 5 }) : answers({ name: 'Baraka' }));
    const listed = [
      source(b, T1, counts, 1, answers()),
      source(first!, T2, at(first!), first === a ? 5 : 1, given(first!)),
      source(second!, T2, at(second!), second === a ? 5 : 1, given(second!)),
      source(c, T3, sizes, 2.5, answers({ household_size: 2.5 })),
    ];
    expect(await sources(targets, reportId)).toEqual(listed);
    const report = await call(t.app, 'GET', `/orgs/${team.org.id}/indicator-reports/${reportId}`, {
      as: team.admin,
    });
    expect(report.body.value).toBe(9.5);

    expect(await sources(targets, reportId, team.viewer, '?page=2&limit=3')).toEqual({
      data: [listed[3]],
      meta: { total: 4, page: 2, limit: 3, totalPages: 2 },
    });
    expect(await sources(targets, reportId, team.viewer, '?limit=2')).toEqual({
      data: listed.slice(0, 2),
      meta: { total: 4, page: 1, limit: 2, totalPages: 2 },
    });
    expect(await sources(targets, reportId, team.viewer, '?page=3&limit=2')).toEqual({
      data: [],
      meta: { total: 4, page: 3, limit: 2, totalPages: 2 },
    });
  });

  it('stops at the submission: what came after the report was submitted is neither counted nor listed', async () => {
    const targets = await newTargets();
    const form = await countingForm(targets);
    const first = await submit(form, answers(), T1);
    const second = await submit(form, answers(), T2);
    const reportId = await reportOf(targets);
    await act(t.app, team.officer, team.org.id, reportId, 'submit');
    const late = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
    expect(late.status).toBe(201);
    const listed = [source(first, T1, form, 1, answers()), source(second, T2, form, 1, answers())];
    expect(await sources(targets, reportId)).toEqual(listed);
    await act(t.app, team.admin, team.org.id, reportId, 'approve');
    expect(await sources(targets, reportId)).toEqual(listed);
    const [stored] = await t.database.db
      .select()
      .from(formSubmissions)
      .where(eq(formSubmissions.id, late.body.id));
    expect([stored!.counted, stored!.indicatorReportId, stored!.countedAmount]).toEqual([false, null, null]);
  });

  it('is empty for a report typed in by hand', async () => {
    const targets = await newTargets();
    const report = await postReport(t.app, team.officer, team.org.id, targets.project.id, {
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
      value: 12,
    });
    expect(await sources(targets, report.id)).toEqual([]);
    expect(await sources(targets, report.id, team.admin, '?page=1')).toEqual({
      data: [],
      meta: { total: 0, page: 1, limit: 20, totalPages: 0 },
    });
  });
});

describe('personal answers among the sources (DECISIONS.md section 5)', () => {
  /** What a viewer gets of any submission of PERSONAL_FIELDS, and anyone of an erased one. */
  const HIDDEN = { name: null, age: null, born: null, home: null, story: null };
  const ROUTE = 'GET /orgs/:orgId/projects/:projectId/indicator-reports/:id/sources';

  /** Two forms into one report: one counting the personal `age`, one without personal fields. */
  async function mixedReport() {
    const targets = await newTargets();
    const ages = await countingForm(targets, { fields: PERSONAL_FIELDS, valueFieldKey: 'age' });
    const plain = await countingForm(targets);
    const kept = await submit(ages, personalAnswers({ age: 34 }), T1);
    const gone = await submit(ages, personalAnswers({ age: 20 }), T2);
    const other = await submit(plain, answers(), T3);
    const erased = await call(t.app, 'POST', eraseUrl(team.org.id, ages.id, gone), {
      as: team.admin,
      body: { reason: 'Asked by the respondent' },
    });
    expect(erased.status).toBe(200);
    const reportId = await reportOf(targets);
    return { targets, ages, plain, kept, gone, other, reportId };
  }

  const readsOf = async (reportId: string) =>
    (await auditEntriesIn(t.database.db, team.org.id)).filter(
      (entry) => entry.details.indicatorReportId === reportId,
    );

  it('are null for viewers, and their amount with them when it may be one; nothing is recorded', async () => {
    const { targets, ages, plain, kept, gone, other, reportId } = await mixedReport();
    const erasedAnswers = { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true };
    expect(await sources(targets, reportId, team.viewer)).toEqual([
      source(kept, T1, ages, null, erasedAnswers),
      source(gone, T2, ages, null, erasedAnswers),
      source(other, T3, plain, 1, answers()),
    ]);
    expect(await readsOf(reportId)).toEqual([]);
  });

  it('reach the other roles in clear but once erased; each page that carries them is recorded', async () => {
    const { targets, ages, plain, kept, gone, other, reportId } = await mixedReport();
    await assignProject(t.database.db, team.org.id, targets.project.id, team.reporter.id);
    const expected = [
      source(kept, T1, ages, 34, personalAnswers({ age: 34 })),
      source(gone, T2, ages, null, { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true }),
      source(other, T3, plain, 1, answers()),
    ];
    for (const as of [team.officer, team.admin, team.reporter]) {
      expect(await sources(targets, reportId, as)).toEqual(expected);
    }
    // Pages without personal answers in clear are not recorded.
    await sources(targets, reportId, team.officer, '?page=2&limit=1');
    await sources(targets, reportId, team.officer, '?page=3&limit=1');
    await sources(targets, reportId, team.officer, '?page=1&limit=1');
    const entry = (actorId: string, actorRole: string) => ({
      id: expect.any(Number),
      orgId: team.org.id,
      at: expect.any(Date),
      actorId,
      actorRole,
      tokenId: null,
      tokenName: null,
      ip: '127.0.0.1',
      requestId: expect.any(String),
      action: 'read',
      route: ROUTE,
      subjectKind: 'form_submission',
      subjectIds: [kept],
      count: 1,
      details: { indicatorReportId: reportId },
    });
    expect(await readsOf(reportId)).toEqual([
      entry(team.officer.id, 'me_officer'),
      entry(team.admin.id, 'org_admin'),
      entry(team.reporter.id, 'reporter'),
      {
        ...entry(team.officer.id, 'me_officer'),
        details: { indicatorReportId: reportId, page: 1, limit: 1 },
      },
    ]);
  });
});

describe('who may read the sources', () => {
  it('needs a session (401); reporters only on assigned projects, strangers never (403)', async () => {
    const targets = await newTargets();
    const form = await countingForm(targets, { fields: PERSONAL_FIELDS });
    await submit(form, personalAnswers(), T1);
    const reportId = await reportOf(targets);
    const url = sourcesUrl(targets.project.id, reportId);
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    expect(await auditEntriesIn(t.database.db, team.org.id)).not.toContainEqual(
      expect.objectContaining({ details: { indicatorReportId: reportId } }),
    );
  });

  it("is 404 for another org's report, another project's, an unknown one, and an unknown project", async () => {
    const targets = await newTargets();
    await submit(await countingForm(targets), answers(), T1);
    const reportId = await reportOf(targets);
    const theirs = await formTargets(t.app, t.database.db, team.outsider, team.outsiderOrg.id);
    const theirReport = await postReport(t.app, team.outsider, team.outsiderOrg.id, theirs.project.id, {
      indicatorId: theirs.indicator.id,
      reportingPeriodId: theirs.period.id,
      value: 1,
    });
    const elsewhere = await createProject(t.database.db, team.org.id);
    const indicator = await postIndicator(t.app, team.officer, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, elsewhere.id, indicator.id);
    const get = (url: string) => call(t.app, 'GET', url, { as: team.admin });
    const REPORT = notFoundBody('Indicator report');
    expectError(await get(sourcesUrl(targets.project.id, theirReport.id)), REPORT);
    expectError(await get(sourcesUrl(elsewhere.id, reportId)), REPORT);
    expectError(await get(sourcesUrl(targets.project.id, MISSING_ID)), REPORT);
    expectError(await get(sourcesUrl(theirs.project.id, theirReport.id)), notFoundBody('Project'));
    expectError(await get(sourcesUrl(MISSING_ID, reportId)), notFoundBody('Project'));
    // The other org's own members reach their report only through their own org.
    expectError(
      await call(t.app, 'GET', sourcesUrl(theirs.project.id, reportId, team.outsiderOrg.id), {
        as: team.outsider,
      }),
      REPORT,
    );
  });

  it('is 400 for a malformed id and a page or limit out of range', async () => {
    const targets = await newTargets();
    const get = (url: string) => call(t.app, 'GET', url, { as: team.admin });
    expectError(
      await get(sourcesUrl(targets.project.id, 'not-a-report')),
      badRequestAt(['path', '/id', 'format', 'id must be a UUID']),
    );
    expectError(
      await get(sourcesUrl('42', MISSING_ID)),
      badRequestAt(['path', '/projectId', 'format', 'projectId must be a UUID']),
    );
    const url = sourcesUrl(targets.project.id, MISSING_ID);
    expectError(await get(`${url}?page=0`), badRequest('page must not be less than 1'));
    expectError(await get(`${url}?limit=101`), badRequest('limit must not be greater than 100'));
    expectError(await get(`${url}?limit=ten`), badRequest('limit must be an integer'));
  });
});
