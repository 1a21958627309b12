import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import {
  answers,
  formTargets,
  formUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  submissionsCsvUrl,
  SURVEY_FIELDS,
  type FormJson,
  countingFormFor,
  reportOfTargets,
  submitAt,
  type FormTargets,
} from '../../../test/helpers/forms.js';
import {
  badRequestAt,
  call,
  expectError,
  MISSING_ID,
  notFoundBody,
  type Caller,
  ALL_ROLES,
  notAssigned,
} from '../../../test/helpers/http.js';
import { act, postReport } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { expectExportAfterErasure, withdrawConsent } from '../../../test/helpers/submission-audit.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

type Targets = FormTargets;

const newTargets = () => formTargets(t.app, t.database.db, team.officer, team.org.id);

const countingForm = (targets: Targets, body: Record<string, unknown> = {}) =>
  countingFormFor(t.app, team.officer, team.org.id, targets, body);

const submit = (form: FormJson, given: Record<string, unknown>, at: string) =>
  submitAt(t.app, t.database.db, form, given, at);

const reportOf = (targets: Targets, periodId = targets.period.id) =>
  reportOfTargets(t.app, team.admin, team.org.id, targets, periodId);

const exportOf = (form: FormJson, reportId: string, as: Caller = team.admin) =>
  call(t.app, 'GET', `${submissionsCsvUrl(team.org.id, form.id)}?indicatorReportId=${reportId}`, { as });

async function exported(form: FormJson, reportId: string, as: Caller = team.admin): Promise<string[][]> {
  const res = await exportOf(form, reportId, as);
  expect(res.status, res.body as string).toBe(200);
  return parse(res.response.body);
}

const SURVEY_HEADER = [
  'id',
  'submittedAt',
  'counted',
  'location',
  ...SURVEY_FIELDS.map((field) => field.key),
];
/** A row of SURVEY_FIELDS answered with `answers()` but for the household size. */
const surveyRow = (id: string, at: string, counted: boolean, size: string) => [
  id,
  at,
  String(counted),
  '',
  'Achieng',
  size,
  'well',
  '',
  'true',
];

const T1 = '2026-02-01T09:00:00.000Z';
const T2 = '2026-02-02T09:00:00.000Z';
const T3 = '2026-02-03T09:00:00.000Z';
const T4 = '2026-04-04T09:00:00.000Z';

describe('GET /orgs/:orgId/forms/:id/submissions.csv?indicatorReportId=', () => {
  it("exports exactly the form's submissions counted into that report, oldest first", async () => {
    const targets = await newTargets();
    const form = await countingForm(targets, { valueFieldKey: 'household_size' });
    const other = await countingForm(targets);
    const b = await submit(form, answers({ household_size: 3 }), T2);
    const a = await submit(form, answers({ household_size: 5 }), T1);
    const uncounted = await submit(form, answers({ household_size: null }), T3);
    // Another form into the same report: not this form's export.
    await submit(other, answers(), T1);
    const q1 = await reportOf(targets);
    // Later submissions count into the next period's report.
    const q2Period = await createPeriod(t.database.db, team.org.id, targets.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const moved = await call(t.app, 'PATCH', formUrl(team.org.id, form.id), {
      as: team.officer,
      body: { reportingPeriodId: q2Period.id },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const c = await submit(form, answers({ household_size: 2 }), T4);
    const q2 = await reportOf(targets, q2Period.id);

    expect(await exported(form, q1)).toEqual([
      SURVEY_HEADER,
      surveyRow(a, T1, true, '5'),
      surveyRow(b, T2, true, '3'),
    ]);
    expect(await exported(form, q2, team.viewer)).toEqual([SURVEY_HEADER, surveyRow(c, T4, true, '2')]);
    const all = await call(t.app, 'GET', submissionsCsvUrl(team.org.id, form.id), { as: team.admin });
    expect(parse(all.response.body)).toEqual([
      SURVEY_HEADER,
      surveyRow(a, T1, true, '5'),
      surveyRow(b, T2, true, '3'),
      surveyRow(uncounted, T3, false, ''),
      surveyRow(c, T4, true, '2'),
    ]);
  });

  it("gives the header alone for a report of the form's project it never counted into", async () => {
    const targets = await newTargets();
    const form = await countingForm(targets);
    await submit(form, answers(), T1);
    // A report by hand on the same indicator in another period: nothing is counted into it.
    const q2 = await createPeriod(t.database.db, team.org.id, targets.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const manual = await postReport(t.app, team.officer, team.org.id, targets.project.id, {
      indicatorId: targets.indicator.id,
      reportingPeriodId: q2.id,
      value: 4,
    });
    expect(await exported(form, manual.id, team.officer)).toEqual([SURVEY_HEADER]);
  });

  it('is 404 for a report of another org, of another project, or unknown; 400 for a malformed id', async () => {
    const targets = await newTargets();
    const form = await countingForm(targets);
    const theirs = await formTargets(t.app, t.database.db, team.outsider, team.outsiderOrg.id);
    const theirReport = await postReport(t.app, team.outsider, team.outsiderOrg.id, theirs.project.id, {
      indicatorId: theirs.indicator.id,
      reportingPeriodId: theirs.period.id,
      value: 1,
    });
    const elsewhere = await newTargets();
    await submit(await countingForm(elsewhere), answers(), T1);
    const REPORT = notFoundBody('Indicator report');
    expectError(await exportOf(form, theirReport.id), REPORT);
    expectError(await exportOf(form, await reportOf(elsewhere)), REPORT);
    expectError(await exportOf(form, MISSING_ID), REPORT);
    expectError(
      await exportOf(form, 'not-a-report'),
      badRequestAt(['query', '/indicatorReportId', 'format', 'indicatorReportId must be a UUID']),
    );
    // The form is checked first: an unknown form, or a reporter off its project, hear nothing of the report.
    expectError(
      await call(
        t.app,
        'GET',
        `${submissionsCsvUrl(team.org.id, MISSING_ID)}?indicatorReportId=${MISSING_ID}`,
        {
          as: team.admin,
        },
      ),
      notFoundBody('Form'),
    );
    expectError(await exportOf(form, MISSING_ID, team.reporter), notAssigned(ALL_ROLES));
  });

  it('records an export with personal answers in clear, its filter and its count; none for viewers or no rows', async () => {
    const targets = await newTargets();
    const form = await countingForm(targets, { fields: PERSONAL_FIELDS });
    const kept = await submit(form, personalAnswers(), T1);
    const gone = await submit(form, personalAnswers(), T2);
    const third = await submit(form, personalAnswers(), T3);
    const reportId = await reportOf(targets);
    await act(t.app, team.officer, team.org.id, reportId, 'submit');
    // Not counted: the report is submitted.
    const late = await submit(form, personalAnswers(), T4);
    const erased = await withdrawConsent(t.app, team, form.id, gone);
    expect(erased.status).toBe(200);

    const rows = await exported(form, reportId, team.officer);
    expect(rows.map((row) => row[0])).toEqual(['id', kept, gone, third]);
    expect(rows.map((row) => row[4])).toEqual(['name', 'Achieng Otieno', '', 'Achieng Otieno']);
    expect(rows.flat()).not.toContain(late);
    const viewed = await exported(form, reportId, team.viewer);
    expect(viewed.map((row) => row[4])).toEqual(['name', '', '', '']);
    const manual = await postReport(t.app, team.officer, team.org.id, targets.project.id, {
      indicatorId: targets.indicator.id,
      reportingPeriodId: (
        await createPeriod(t.database.db, team.org.id, targets.project.id, {
          label: 'Q2 2026',
          startDate: '2026-04-01',
          endDate: '2026-06-30',
        })
      ).id,
      value: 1,
    });
    expect(await exported(form, manual.id, team.officer)).toHaveLength(1);

    await expectExportAfterErasure(t.database.db, team, form.id, {
      route: 'GET /orgs/:orgId/forms/:id/submissions.csv',
      count: 2,
      details: { formId: form.id, indicatorReportId: reportId },
    });
  });
});
