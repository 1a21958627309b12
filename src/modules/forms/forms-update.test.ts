import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../test/helpers/factories.js';
import {
  answers,
  formTargets,
  formUrl,
  postForm,
  publicFormUrl,
  publishedForm,
  SURVEY_FIELDS,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import {
  indicatorUrl,
  linkIndicator,
  linksUrl,
  postIndicator,
  postReport,
  reportsUrl,
} from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const patch = (id: string, body: unknown) =>
  call(t.app, 'PATCH', formUrl(team.org.id, id), { as: team.officer, body });
const act = (id: string, action: 'publish' | 'unpublish' | 'regenerate-token') =>
  call(t.app, 'POST', formUrl(team.org.id, id, action), { as: team.admin });
const read = async (id: string) =>
  (await call(t.app, 'GET', formUrl(team.org.id, id), { as: team.admin })).body as FormJson;
const submit = (token: string, given = answers()) =>
  call(t.app, 'POST', submitUrl(token), { body: { answers: given } });
const plainForm = async (extra: Record<string, unknown> = {}) =>
  postForm(t.app, team.officer, team.org.id, {
    projectId: (await createProject(t.database.db, team.org.id)).id,
    ...extra,
  });

/** A published form without an indicator, with one stored submission. */
async function answeredForm(extra: Record<string, unknown> = {}) {
  const project = await createProject(t.database.db, team.org.id);
  const form = await publishedForm(t.app, team.officer, team.org.id, { projectId: project.id, ...extra });
  expect((await submit(form.publicToken)).status).toBe(201);
  // Counting into no indicator: stored, not counted (not_counting).
  return { ...form, submissionCount: 1, uncountedCount: 1, uncountedBy: { not_counting: 1 } };
}

const EDIT_REFUSED = (keys: string) =>
  conflictBody(
    'This form has submissions: a field cannot be removed or change its type, and options cannot be ' +
      `removed (${keys})`,
  );

describe('PATCH /orgs/:orgId/forms/:id', () => {
  it('changes each property alone; null or spaces clear the description and closesAt', async () => {
    const form = await plainForm({ description: 'Door to door', closesAt: '2030-01-01T00:00:00Z' });
    const fields = [{ type: 'date', label: 'Visit date', key: 'visited', required: true }];
    const changes: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ title: ' Borehole survey ' }, { title: 'Borehole survey' }],
      [{ description: ' Ask the head ' }, { description: 'Ask the head' }],
      [{ description: '  ' }, { description: null }],
      [{ description: 'Again' }, { description: 'Again' }],
      [{ description: null }, { description: null }],
      [{ closesAt: '2031-06-30T12:00:00+03:00' }, { closesAt: '2031-06-30T09:00:00.000Z' }],
      [{ closesAt: null }, { closesAt: null }],
      [{ fields }, { fields }],
    ];
    let current = form;
    for (const [body, changed] of changes) {
      const res = await patch(form.id, body);
      expect([res.status, res.body]).toEqual([
        200,
        { ...current, ...changed, updatedAt: expect.stringMatching(TIMESTAMP) },
      ]);
      current = res.body as FormJson;
    }
    expect(await read(form.id)).toEqual(current);
  });

  it('answers an empty body with the unchanged form', async () => {
    const form = await plainForm();
    const res = await patch(form.id, {});
    expect([res.status, res.body]).toEqual([200, form]);
  });

  it('recomputes the links from what is sent and what is stored', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: project.id });
    const linked = await patch(form.id, { indicatorId: indicator.id, reportingPeriodId: period.id });
    expect(linked.body).toMatchObject({ indicatorId: indicator.id, reportingPeriodId: period.id });
    expect((await patch(form.id, { valueFieldKey: 'household_size' })).body).toMatchObject({
      indicatorId: indicator.id,
      valueFieldKey: 'household_size',
    });
    expectViolations(await patch(form.id, { indicatorId: null }), 'valueFieldKey needs indicatorId');
    expectViolations(
      await patch(form.id, { fields: SURVEY_FIELDS.filter((f) => f.key !== 'household_size') }),
      'valueFieldKey must be the key of a number field',
    );
    expectViolations(
      await patch(form.id, { reportingPeriodId: null }),
      'reportingPeriodId is required with indicatorId',
    );
    const unlinked = await patch(form.id, { indicatorId: null, valueFieldKey: null });
    expect([unlinked.status, unlinked.body]).toEqual([
      200,
      { ...linked.body, updatedAt: expect.stringMatching(TIMESTAMP), indicatorId: null, valueFieldKey: null },
    ]);
    const unlinkedPeriod = await patch(form.id, { reportingPeriodId: null });
    expect(unlinkedPeriod.body).toMatchObject({
      indicatorId: null,
      reportingPeriodId: null,
      valueFieldKey: null,
    });
  });

  it('checks new links like creation: 404 unknown or foreign, 400 unlinked or of another project', async () => {
    const { project, period } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: project.id });
    const foreign = await formTargets(t.app, t.database.db, team.outsider, team.outsiderOrg.id);
    const unlinked = await postIndicator(t.app, team.officer, team.org.id);
    const elsewhere = await createPeriod(
      t.database.db,
      team.org.id,
      (await createProject(t.database.db, team.org.id)).id,
    );
    expectError(
      await patch(form.id, { indicatorId: foreign.indicator.id, reportingPeriodId: period.id }),
      notFoundBody('Indicator'),
    );
    expectError(
      await patch(form.id, { reportingPeriodId: foreign.period.id }),
      notFoundBody('Reporting period'),
    );
    expectError(await patch(form.id, { reportingPeriodId: MISSING_ID }), notFoundBody('Reporting period'));
    expectError(
      await patch(form.id, { indicatorId: unlinked.id, reportingPeriodId: period.id }),
      badRequest('indicatorId must be an indicator linked to the project'),
    );
    expectError(
      await patch(form.id, { reportingPeriodId: elsewhere.id }),
      badRequest('reportingPeriodId must be a reporting period of this project'),
    );
    expect(await read(form.id)).toEqual(form);
  });

  it('refuses body and field violations with 400', async () => {
    const form = await plainForm();
    expectViolations(await patch(form.id, { fields: [] }), 'fields must contain at least 1 items');
    expectViolations(await patch(form.id, { title: '' }), 'title should not be empty');
    expectViolations(await patch(form.id, { projectId: MISSING_ID }), 'property projectId should not exist');
    expectViolations(
      await patch(form.id, { fields: [...SURVEY_FIELDS, { type: 'select', label: 'Again', key: 'name' }] }),
      'fields.5.key must be unique; name is used before',
      'fields.5.options is required for select fields',
    );
    expect(await read(form.id)).toEqual(form);
  });
});

describe('PATCH of a form with submissions', () => {
  it('allows relabelling, reordering, new fields, new options and required changes', async () => {
    const form = await answeredForm();
    const [name, size, source, reason, consent] = SURVEY_FIELDS;
    const fields = [
      { ...consent, label: 'Do you agree?', required: true },
      { ...source, options: ['tap', 'well', 'river', 'borehole'] },
      { ...reason, required: false },
      { type: 'date', label: 'Visit date', key: 'visited' },
      { ...name, required: false },
      size,
    ];
    const res = await patch(form.id, { fields });
    expect([res.status, res.body]).toEqual([
      200,
      { ...form, fields, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
  });

  it('refuses (409) removing a field, changing a type or removing an option, naming the fields', async () => {
    const form = await answeredForm();
    const [name, size, source, reason, consent] = SURVEY_FIELDS as Record<string, unknown>[];
    const cases: [Record<string, unknown>[], string][] = [
      [[name!, size!, source!, reason!], 'consent'],
      [[name!, { ...size!, type: 'text' }, source!, reason!, consent!], 'household_size'],
      [[name!, size!, { ...source!, options: ['river', 'tap'] }, reason!, consent!], 'source'],
      [[{ ...name!, type: 'textarea' }, size!, source!, consent!], 'name, river_reason'],
    ];
    for (const [fields, keys] of cases) expectError(await patch(form.id, { fields }), EDIT_REFUSED(keys));
    expect(await read(form.id)).toEqual(form);
  });

  it('lets a form without submissions lose fields and options', async () => {
    const form = await plainForm();
    const fields = [{ ...SURVEY_FIELDS[2], options: ['well'] }];
    expect((await patch(form.id, { fields })).body.fields).toEqual(fields);
  });
});

describe('publish and unpublish', () => {
  it('publishes (200), opens the public link, and refuses to publish twice (409)', async () => {
    const form = await plainForm({ description: 'Door to door' });
    expectError(await call(t.app, 'GET', publicFormUrl(form.publicToken)), notFoundBody('Form'));
    const res = await act(form.id, 'publish');
    expect([res.status, res.body]).toEqual([
      200,
      { ...form, isPublished: true, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
    const open = await call(t.app, 'GET', publicFormUrl(form.publicToken));
    expect([open.status, open.body]).toEqual([
      200,
      {
        title: form.title,
        description: 'Door to door',
        fields: SURVEY_FIELDS,
        closesAt: null,
        language: 'en',
        languages: [{ code: 'en', name: 'English' }],
      },
    ]);
    expectError(await act(form.id, 'publish'), conflictBody('Form is already published'));
  });

  it('unpublishes (200): the public link and submissions answer 404 at once; twice is 409', async () => {
    const form = await answeredForm();
    const res = await act(form.id, 'unpublish');
    expect([res.status, res.body]).toEqual([
      200,
      { ...form, isPublished: false, updatedAt: expect.stringMatching(TIMESTAMP) },
    ]);
    expectError(await call(t.app, 'GET', publicFormUrl(form.publicToken)), notFoundBody('Form'));
    expectError(await submit(form.publicToken), notFoundBody('Form'));
    expectError(await act(form.id, 'unpublish'), conflictBody('Form is not published'));
    expect((await read(form.id)).submissionCount).toBe(1);
  });
});

describe('POST /orgs/:orgId/forms/:id/regenerate-token', () => {
  it('gives a new token: the old link and submit answer 404 at once, the new ones work', async () => {
    const form = await answeredForm();
    const res = await act(form.id, 'regenerate-token');
    const token = res.body.publicToken as string;
    expect(token).not.toBe(form.publicToken);
    expect([res.status, res.body]).toEqual([
      200,
      {
        ...form,
        publicToken: expect.stringMatching(/^[0-9a-f-]{36}$/),
        publicUrl: `http://app.test/f/${token}`,
        updatedAt: expect.stringMatching(TIMESTAMP),
      },
    ]);
    expectError(await call(t.app, 'GET', publicFormUrl(form.publicToken)), notFoundBody('Form'));
    expectError(await submit(form.publicToken), notFoundBody('Form'));
    expect((await call(t.app, 'GET', publicFormUrl(token))).status).toBe(200);
    expect((await submit(token)).status).toBe(201);
    expect((await read(form.id)).submissionCount).toBe(2);
  });
});

describe('DELETE /orgs/:orgId/forms/:id', () => {
  it('deletes the form with its submissions (204); counted values stay in the report', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    expect((await submit(form.publicToken)).status).toBe(201);
    const res = await call(t.app, 'DELETE', formUrl(team.org.id, form.id), { as: team.officer });
    expect([res.status, res.body]).toEqual([204, null]);
    expectError(
      await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.admin }),
      notFoundBody('Form'),
    );
    expectError(await call(t.app, 'GET', publicFormUrl(form.publicToken)), notFoundBody('Form'));
    expectError(await submit(form.publicToken), notFoundBody('Form'));
    const stored = await t.database.db
      .select()
      .from(formSubmissions)
      .where(eq(formSubmissions.formId, form.id));
    expect(stored).toEqual([]);
    const reports = await call(t.app, 'GET', reportsUrl(team.org.id, project.id), { as: team.admin });
    expect(reports.body).toEqual([expect.objectContaining({ indicatorId: indicator.id, value: 1 })]);
    expectError(
      await call(t.app, 'DELETE', formUrl(team.org.id, form.id), { as: team.admin }),
      notFoundBody('Form'),
    );
  });
});

describe('what a form keeps from being deleted elsewhere', () => {
  const deletePeriod = (id: string) =>
    call(t.app, 'DELETE', `/orgs/${team.org.id}/reporting-periods/${id}`, { as: team.admin });

  it("refuses to delete the form's reporting period, then one holding its submissions (409)", async () => {
    const project = await createProject(t.database.db, team.org.id);
    const q1 = await createPeriod(t.database.db, team.org.id, project.id);
    const q2 = await createPeriod(t.database.db, team.org.id, project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
    });
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      reportingPeriodId: q1.id,
    });
    expectError(await deletePeriod(q1.id), conflictBody('Reporting period is used by a form'));
    expect((await submit(form.publicToken)).status).toBe(201);
    expect((await patch(form.id, { reportingPeriodId: q2.id })).status).toBe(200);
    expectError(await deletePeriod(q1.id), conflictBody('Reporting period has submissions'));
    expectError(await deletePeriod(q2.id), conflictBody('Reporting period is used by a form'));
    expect((await call(t.app, 'DELETE', formUrl(team.org.id, form.id), { as: team.admin })).status).toBe(204);
    expect((await deletePeriod(q1.id)).status).toBe(204);
    expect((await deletePeriod(q2.id)).status).toBe(204);
  });

  it('says "has submissions" for a period that holds them and is used by a form, whatever key refuses first', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    expect((await submit(form.publicToken)).status).toBe(201);
    expectError(await deletePeriod(period.id), conflictBody('Reporting period has submissions'));
  });

  it('says "has indicator reports" for an indicator with a form in one project and a report in another', async () => {
    // Deleting the indicator cascades to its project links; the first link the database checks used
    // to decide the message (the form's here), not the contract's order (reports first).
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    await postForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    const other = await createProject(t.database.db, team.org.id);
    const otherPeriod = await createPeriod(t.database.db, team.org.id, other.id);
    await linkIndicator(t.app, team.officer, team.org.id, other.id, indicator.id);
    await postReport(t.app, team.officer, team.org.id, other.id, {
      indicatorId: indicator.id,
      reportingPeriodId: otherPeriod.id,
      value: 1,
    });
    expectError(
      await call(t.app, 'DELETE', indicatorUrl(team.org.id, indicator.id), { as: team.admin }),
      conflictBody('Indicator has indicator reports'),
    );
  });

  it('says "has indicator reports" for an indicator with reports that a formula also uses', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const period = await createPeriod(t.database.db, team.org.id, project.id);
    const input = await postIndicator(t.app, team.officer, team.org.id);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, input.id);
    await postReport(t.app, team.officer, team.org.id, project.id, {
      indicatorId: input.id,
      reportingPeriodId: period.id,
      value: 1,
    });
    await postIndicator(t.app, team.officer, team.org.id, {
      isFormula: true,
      formula: `${input.code} * 2`,
      aggregationMethod: undefined,
    });
    expectError(
      await call(t.app, 'DELETE', indicatorUrl(team.org.id, input.id), { as: team.admin }),
      conflictBody('Indicator has indicator reports'),
    );
  });

  it('refuses to unlink the indicator from the project while a form of it counts there (409)', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await postForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    const unlink = () =>
      call(t.app, 'DELETE', `${linksUrl(team.org.id, project.id)}/${indicator.id}`, { as: team.officer });
    expectError(await unlink(), conflictBody('Indicator is used by a form of this project'));
    expect((await patch(form.id, { indicatorId: null })).status).toBe(200);
    expect((await unlink()).status).toBe(204);
  });

  it('refuses to delete an indicator a form counts into (409), reports being checked first', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    const remove = () => call(t.app, 'DELETE', indicatorUrl(team.org.id, indicator.id), { as: team.admin });
    expectError(await remove(), conflictBody('Indicator is used by a form'));
    expect((await submit(form.publicToken)).status).toBe(201);
    expectError(await remove(), conflictBody('Indicator has indicator reports'));
  });
});
