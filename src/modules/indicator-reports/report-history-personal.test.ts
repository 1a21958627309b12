import { describe, expect, it } from 'vitest';
import { type TestUser } from '../../../test/helpers/factories.js';
import {
  auditEntriesIn,
  eraseUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  publishedForm,
  SURVEY_FIELDS,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import { call, TIMESTAMP } from '../../../test/helpers/http.js';
import { act } from '../../../test/helpers/indicators.js';
import {
  countingForm,
  historyUrl,
  submitAmount,
  type HistoryEntryJson,
} from '../../../test/helpers/report-history.js';
import { reportScene, SEX, type Scene } from '../../../test/helpers/report-scenes.js';
import { useSuite } from '../../../test/helpers/suite.js';

// A report counting a number field marked personal (`age`): each counted amount is a person's answer,
// and the history's values give it away (DECISIONS.md section 5, issue 24).

const { t, team } = useSuite();
const { scene, patch, reportsOf } = reportScene(() => ({ t, team }));

const ROUTE = 'GET /orgs/:orgId/projects/:projectId/indicator-reports/:id/history';

/** A published form of the scene counting the personal `age` of PERSONAL_FIELDS into its report. */
const agesForm = (s: Scene) =>
  publishedForm(t.app, team.officer, s.orgId, {
    projectId: s.project.id,
    indicatorId: s.indicator.id,
    reportingPeriodId: s.period.id,
    fields: PERSONAL_FIELDS,
    valueFieldKey: 'age',
  });

async function submitAge(form: FormJson, age: number): Promise<string> {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), {
    body: { answers: personalAnswers({ age }) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/**
 * Two ages (34, 20) and a household size (5, not personal) counted into one report, which is then
 * edited by hand (with disaggregated values), submitted and rejected.
 */
async function personalReport() {
  const s = await scene({ dimensions: [SEX] });
  const ages = await agesForm(s);
  const first = await submitAge(ages, 34);
  const household = await submitAmount(t.app, await countingForm(t.app, team.officer, s), 5);
  const second = await submitAge(ages, 20);
  const [report] = await reportsOf(s.project.id);
  const id = report!.id;
  const edit = { disaggregatedValues: { female: 30, male: 30 }, narrative: 'Checked at the clinic' };
  expect((await patch(id, edit)).status).toBe(200);
  await act(t.app, team.officer, s.orgId, id, 'submit');
  await act(t.app, team.admin, s.orgId, id, 'reject', { comment: 'Two ages look wrong' });
  return { s, id, ages, first, second, household };
}

async function read(s: Scene, id: string, as: TestUser, query = '') {
  const res = await call(t.app, 'GET', `${historyUrl(s, id)}${query}`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const entry = (
  kind: string,
  actor: { user: TestUser } | { submissionId: string },
  changes: HistoryEntryJson['changes'],
  more: { reason?: string; valuesHidden?: boolean } = {},
) => ({
  id: expect.any(Number),
  at: expect.stringMatching(TIMESTAMP),
  kind,
  ...('user' in actor
    ? {
        actorId: actor.user.id,
        actorName: `${actor.user.firstName} ${actor.user.lastName}`,
        submissionId: null,
      }
    : { actorId: null, actorName: null, submissionId: actor.submissionId }),
  changes,
  reason: more.reason ?? null,
  valuesHidden: more.valuesHidden ?? false,
});

/** The report's history in full, as a reader who may see the ages gets it. */
const inClear = ({ first, second, household }: Awaited<ReturnType<typeof personalReport>>) => [
  entry(
    'counted',
    { submissionId: first },
    {
      value: { from: null, to: 34 },
      status: { from: null, to: 'draft' },
    },
  ),
  entry('counted', { submissionId: household }, { value: { from: 34, to: 39 } }),
  entry('counted', { submissionId: second }, { value: { from: 39, to: 59 } }),
  entry(
    'edited',
    { user: team.officer },
    {
      value: { from: 59, to: 60 },
      disaggregatedValues: { from: {}, to: { female: 30, male: 30 } },
      narrative: { from: null, to: 'Checked at the clinic' },
    },
  ),
  entry('submitted', { user: team.officer }, { status: { from: 'draft', to: 'submitted' } }),
  entry(
    'rejected',
    { user: team.admin },
    { status: { from: 'submitted', to: 'rejected' } },
    {
      reason: 'Two ages look wrong',
    },
  ),
];

/** The same history with every value left out, as a viewer gets it. */
const hidden = ({ first, second, household }: Awaited<ReturnType<typeof personalReport>>) => [
  entry('counted', { submissionId: first }, { status: { from: null, to: 'draft' } }, { valuesHidden: true }),
  entry('counted', { submissionId: household }, {}, { valuesHidden: true }),
  entry('counted', { submissionId: second }, {}, { valuesHidden: true }),
  entry(
    'edited',
    { user: team.officer },
    { narrative: { from: null, to: 'Checked at the clinic' } },
    {
      valuesHidden: true,
    },
  ),
  entry(
    'submitted',
    { user: team.officer },
    { status: { from: 'draft', to: 'submitted' } },
    {
      valuesHidden: true,
    },
  ),
  entry(
    'rejected',
    { user: team.admin },
    { status: { from: 'submitted', to: 'rejected' } },
    {
      reason: 'Two ages look wrong',
      valuesHidden: true,
    },
  ),
];

/** The audit log's reads of the report's history. */
const readsOf = async (reportId: string) =>
  (await auditEntriesIn(t.database.db, team.org.id)).filter(
    (e) => e.action === 'read' && e.details.indicatorReportId === reportId,
  );

const auditEntry = (
  user: TestUser,
  role: string,
  subjectIds: string[],
  details: Record<string, unknown>,
) => ({
  id: expect.any(Number),
  orgId: team.org.id,
  at: expect.any(Date),
  actorId: user.id,
  actorRole: role,
  tokenId: null,
  tokenName: null,
  ip: '127.0.0.1',
  requestId: expect.any(String),
  action: 'read',
  route: ROUTE,
  subjectKind: 'form_submission',
  subjectIds,
  count: subjectIds.length,
  details,
});

describe('GET .../indicator-reports/:id/history of a report counting personal answers', () => {
  it('leaves every value out for viewers, keeps the rest, and records nothing', async () => {
    const report = await personalReport();
    expect(await read(report.s, report.id, team.viewer)).toEqual(hidden(report));
    expect(await read(report.s, report.id, team.viewer, '?page=2&limit=2')).toEqual({
      data: hidden(report).slice(2, 4),
      meta: { total: 6, page: 2, limit: 2, totalPages: 3 },
    });
    expect(await readsOf(report.id)).toEqual([]);
  });

  it('gives me_officers and org_admins the values, each read recorded with the personal sources on it', async () => {
    const report = await personalReport();
    const { s, id, first, second } = report;
    expect(await read(s, id, team.officer)).toEqual(inClear(report));
    expect(await read(s, id, team.admin, '?page=1&limit=2')).toEqual({
      data: inClear(report).slice(0, 2),
      meta: { total: 6, page: 1, limit: 2, totalPages: 3 },
    });
    // A page without a counted age (the edit, the submission) carries none: not recorded.
    expect((await read(s, id, team.admin, '?page=2&limit=3')).data).toEqual(inClear(report).slice(3, 6));
    expect(await readsOf(id)).toEqual([
      auditEntry(team.officer, 'me_officer', [first, second], { indicatorReportId: id }),
      auditEntry(team.admin, 'org_admin', [first], { indicatorReportId: id, page: 1, limit: 2 }),
    ]);
  });

  it('leaves every value out for everyone once one of those answers is erased, and records nothing', async () => {
    const report = await personalReport();
    const { s, id, ages, second } = report;
    const erased = await call(t.app, 'POST', eraseUrl(s.orgId, ages.id, second), {
      as: team.admin,
      body: { reason: 'Asked by the respondent' },
    });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    for (const as of [team.viewer, team.officer, team.admin]) {
      expect(await read(s, id, as)).toEqual(hidden(report));
    }
    expect(await readsOf(id)).toEqual([]);
  });

  it('leaves every value out for everyone once a form counting ages is deleted with its answers', async () => {
    const s = await scene();
    const kept = await agesForm(s);
    const deleted = await agesForm(s);
    await submitAge(kept, 34);
    await submitAge(deleted, 20);
    const [report] = await reportsOf(s.project.id);
    // Before: the officer reads the ages (the remaining form's would still be there afterwards).
    const before = (await read(s, report!.id, team.officer)) as HistoryEntryJson[];
    expect(before.map((e) => e.valuesHidden)).toEqual([false, false]);
    const gone = await call(t.app, 'DELETE', `/orgs/${s.orgId}/forms/${deleted.id}`, { as: team.admin });
    expect(gone.status).toBe(204);
    // The deleted answers' amounts are as gone as erased ones: hidden from everyone, the deletion too.
    for (const as of [team.viewer, team.officer, team.admin]) {
      const entries = (await read(s, report!.id, as)) as HistoryEntryJson[];
      expect(entries.map((e) => [e.kind, e.valuesHidden])).toEqual([
        ['counted', true],
        ['counted', true],
        ['uncounted', true],
      ]);
      expect(entries.at(-1)).toEqual(entry('uncounted', { user: team.admin }, {}, { valuesHidden: true }));
    }
  });
});

describe('GET .../indicator-reports/:id/history of a report counting no personal answer', () => {
  it('gives everyone the values and records nothing, personal fields elsewhere in the form or not', async () => {
    const s = await scene();
    // Its name is personal, the counted household size is not.
    const named = SURVEY_FIELDS.map((field) => (field.key === 'name' ? { ...field, personal: true } : field));
    const form = await publishedForm(t.app, team.officer, s.orgId, {
      projectId: s.project.id,
      indicatorId: s.indicator.id,
      reportingPeriodId: s.period.id,
      fields: named,
      valueFieldKey: 'household_size',
    });
    const a = await submitAmount(t.app, form, 4);
    const b = await submitAmount(t.app, await countingForm(t.app, team.officer, s), 3);
    const [report] = await reportsOf(s.project.id);
    const expected = [
      entry(
        'counted',
        { submissionId: a },
        { value: { from: null, to: 4 }, status: { from: null, to: 'draft' } },
      ),
      entry('counted', { submissionId: b }, { value: { from: 4, to: 7 } }),
    ];
    for (const as of [team.viewer, team.officer, team.admin]) {
      expect(await read(s, report!.id, as)).toEqual(expected);
    }
    expect(await readsOf(report!.id)).toEqual([]);
  });
});
