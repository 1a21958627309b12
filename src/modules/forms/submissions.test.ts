import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import { multipart, PDF } from '../../../test/helpers/files.js';
import {
  answers,
  formTargets,
  publishedForm,
  submissionFileUrl,
  submissionsUrl,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  call,
  expectError,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  ALL_ROLES,
  notAMember,
  notAssigned,
} from '../../../test/helpers/http.js';
import { act, reportsUrl, type ReportJson } from '../../../test/helpers/indicators.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

type Targets = Awaited<ReturnType<typeof formTargets>>;

/** A published survey counting into a fresh project's indicator and period. */
async function countingForm(body: Record<string, unknown> = {}) {
  const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
  const form = await publishedForm(t.app, team.officer, team.org.id, {
    projectId: targets.project.id,
    indicatorId: targets.indicator.id,
    reportingPeriodId: targets.period.id,
    ...body,
  });
  return { targets, form };
}

async function submit(form: FormJson, given: Record<string, unknown> = answers()) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: given } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; submittedAt: string };
}

async function listed(form: FormJson, query = '') {
  const res = await call(t.app, 'GET', `${submissionsUrl(team.org.id, form.id)}${query}`, { as: team.admin });
  expect(res.status).toBe(200);
  return res.body;
}

async function countedFlags(form: FormJson): Promise<boolean[]> {
  const rows = (await listed(form)) as { counted: boolean }[];
  return rows.map((row) => row.counted).reverse();
}

/** The report of the targets' indicator in the given period, if any. */
async function reportOf(targets: Targets, periodId = targets.period.id): Promise<ReportJson | undefined> {
  const query = `?indicatorId=${targets.indicator.id}&periodId=${periodId}`;
  const res = await call(t.app, 'GET', `${reportsUrl(team.org.id, targets.project.id)}${query}`, {
    as: team.admin,
  });
  expect(res.status).toBe(200);
  expect(res.body.length).toBeLessThanOrEqual(1);
  return res.body[0] as ReportJson | undefined;
}

describe('counting submissions into the indicator report (DECISIONS.md section 10)', () => {
  it('adds 1 per submission of a count form, into a draft report it creates', async () => {
    const { targets, form } = await countingForm();
    expect(await reportOf(targets)).toBeUndefined();
    await submit(form);
    expect(await reportOf(targets)).toMatchObject({
      status: 'draft',
      value: 1,
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: targets.period.id,
    });
    await submit(form);
    await submit(form);
    expect(await reportOf(targets)).toMatchObject({ status: 'draft', value: 3 });
    expect(await countedFlags(form)).toEqual([true, true, true]);
  });

  it('sums the value field; an unanswered value field is stored with counted false', async () => {
    const { targets, form } = await countingForm({ valueFieldKey: 'household_size' });
    await submit(form, answers({ household_size: 5 }));
    await submit(form, answers({ household_size: 3.5 }));
    await submit(form, answers({ household_size: null }));
    expect(await reportOf(targets)).toMatchObject({ status: 'draft', value: 8.5 });
    expect(await countedFlags(form)).toEqual([true, true, false]);
  });

  it('stores but does not count a submission for a locked period, leaving the report untouched', async () => {
    const { targets, form } = await countingForm();
    await submit(form);
    const before = await reportOf(targets);
    const locked = await createPeriod(t.database.db, team.org.id, targets.project.id, {
      label: 'Q2 2026',
      startDate: '2026-04-01',
      endDate: '2026-06-30',
      isLocked: true,
    });
    const lockedForm = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: targets.project.id,
      indicatorId: targets.indicator.id,
      reportingPeriodId: locked.id,
    });
    await submit(lockedForm);
    expect(await countedFlags(lockedForm)).toEqual([false]);
    expect(await reportOf(targets, locked.id)).toBeUndefined();
    expect(await reportOf(targets)).toEqual(before);
  });

  it('does not count into a submitted or an approved report', async () => {
    const { targets, form } = await countingForm();
    await submit(form);
    const report = (await reportOf(targets))!;
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await submit(form);
    expect(await reportOf(targets)).toMatchObject({ status: 'submitted', value: 1 });
    await act(t.app, team.admin, team.org.id, report.id, 'approve');
    await submit(form);
    expect(await reportOf(targets)).toMatchObject({ status: 'approved', value: 1 });
    expect(await countedFlags(form)).toEqual([true, false, false]);
  });

  it('still counts into a rejected report, which stays rejected', async () => {
    const { targets, form } = await countingForm();
    await submit(form);
    const report = (await reportOf(targets))!;
    await act(t.app, team.officer, team.org.id, report.id, 'submit');
    await act(t.app, team.admin, team.org.id, report.id, 'reject');
    await submit(form);
    expect(await reportOf(targets)).toMatchObject({ status: 'rejected', value: 2 });
    expect(await countedFlags(form)).toEqual([true, true]);
  });

  it('does not count a form without an indicator', async () => {
    const targets = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, { projectId: targets.project.id });
    await submit(form);
    expect(await countedFlags(form)).toEqual([false]);
    expect(await reportOf(targets)).toBeUndefined();
  });

  it('counts 200 concurrent submissions over real HTTP exactly once each', { timeout: 120_000 }, async () => {
    const { targets, form } = await countingForm();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const res = await fetch(`http://127.0.0.1:${port}${submitUrl(form.publicToken)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answers: answers({ name: `Respondent ${i}` }) }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses).toEqual(Array.from({ length: 200 }, () => 201));
    expect(await reportOf(targets)).toMatchObject({ status: 'draft', value: 200 });
    expect((await listed(form, '?limit=1')).meta.total).toBe(200);
  });
});

describe('GET /orgs/:orgId/forms/:id/submissions', () => {
  it('lists newest first (ties by id) as { id, submittedAt, location, counted, answers }, plain or paged', async () => {
    const { form } = await countingForm();
    const location = { lat: 0.5143, lng: 35.2698 };
    const call1 = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: answers({ name: 'First' }), location },
    });
    expect(call1.status).toBe(201);
    const second = await submit(form, answers({ name: 'Second', consent: false }));
    const third = await submit(form, answers({ name: 'Third', source: 'river', river_reason: 'Closer' }));
    const at = (iso: string, id: string) =>
      t.database.db
        .update(formSubmissions)
        .set({ submittedAt: new Date(iso) })
        .where(eq(formSubmissions.id, id));
    await at('2026-05-01T10:00:00.000Z', call1.body.id);
    await at('2026-05-02T10:00:00.000Z', second.id);
    await at('2026-05-02T10:00:00.000Z', third.id);
    const tied = [
      { id: second.id, answers: answers({ name: 'Second', consent: false }) },
      { id: third.id, answers: answers({ name: 'Third', source: 'river', river_reason: 'Closer' }) },
    ]
      .sort((a, b) => b.id.localeCompare(a.id))
      .map((s) => ({
        ...s,
        submittedAt: '2026-05-02T10:00:00.000Z',
        location: null,
        counted: true,
        countedReason: null,
      }));
    const expected = [
      ...tied,
      {
        id: call1.body.id,
        submittedAt: '2026-05-01T10:00:00.000Z',
        location,
        counted: true,
        countedReason: null,
        answers: answers({ name: 'First' }),
      },
    ];
    expect(await listed(form)).toEqual(expected);
    expect(await listed(form, '?page=2&limit=2')).toEqual({
      data: [expected[2]],
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
  });

  it('describes a file answer as { fileName, contentType, size, url }', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      fields: [{ type: 'file', label: 'Distribution list', key: 'distribution_list' }],
    });
    const res = await call(t.app, 'POST', submitUrl(form.publicToken), {
      ...multipart([
        { name: 'distribution_list', value: PDF, fileName: 'list.pdf', contentType: 'application/pdf' },
      ]),
    });
    expect(res.status).toBe(201);
    expect(await listed(form)).toEqual([
      {
        id: res.body.id,
        submittedAt: res.body.submittedAt,
        location: null,
        counted: false,
        countedReason: 'not_counting',
        answers: {
          distribution_list: {
            fileName: 'list.pdf',
            contentType: 'application/pdf',
            size: PDF.length,
            url: submissionFileUrl(team.org.id, form.id, res.body.id, 'distribution_list'),
          },
        },
      },
    ]);
  });

  it('lets every member read, reporters only on assigned projects; 401, outsider 403, foreign form 404', async () => {
    const { targets, form } = await countingForm();
    const sent = await submit(form);
    const url = submissionsUrl(team.org.id, form.id);
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    for (const as of [team.viewer, team.officer]) {
      const res = await call(t.app, 'GET', url, { as });
      expect([res.status, res.body.map((s: { id: string }) => s.id)]).toEqual([200, [sent.id]]);
    }
    await assignProject(t.database.db, team.org.id, targets.project.id, team.reporter.id);
    const assigned = await call(t.app, 'GET', url, { as: team.reporter });
    expect([assigned.status, assigned.body.length]).toEqual([200, 1]);

    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreign = await publishedForm(t.app, team.outsider, team.outsiderOrg.id, {
      projectId: foreignProject.id,
    });
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'GET', submissionsUrl(team.org.id, id), { as: team.admin });
      expectError(res, notFoundBody('Form'));
    }
    const crossed = await call(t.app, 'GET', submissionsUrl(team.outsiderOrg.id, form.id), {
      as: team.outsider,
    });
    expectError(crossed, notFoundBody('Form'));
  });
});

describe('GET /orgs/:orgId/forms/:formId/submissions/:submissionId/files/:key', () => {
  const fileFields = [{ type: 'file', label: 'Receipt', key: 'receipt' }];

  async function fileSubmission(orgId: string, as = team.officer) {
    const project = await createProject(t.database.db, orgId);
    const form = await publishedForm(t.app, as, orgId, { projectId: project.id, fields: fileFields });
    const res = await call(t.app, 'POST', submitUrl(form.publicToken), {
      ...multipart([
        { name: 'receipt', value: PDF, fileName: 'receipt.pdf', contentType: 'application/pdf' },
      ]),
    });
    expect(res.status).toBe(201);
    return { project, form, submissionId: res.body.id as string };
  }

  it('serves the file to members who may read the project; 401, outsider 403', async () => {
    const { project, form, submissionId } = await fileSubmission(team.org.id);
    const url = submissionFileUrl(team.org.id, form.id, submissionId, 'receipt');
    const viewer = await call(t.app, 'GET', url, { as: team.viewer });
    expect([viewer.status, viewer.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect(viewer.response.rawPayload.equals(PDF)).toBe(true);
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect((await call(t.app, 'GET', url, { as: team.reporter })).status).toBe(200);
  });

  it("answers 404 File not found for another org's submission, a mismatched form, or a missing key", async () => {
    const ours = await fileSubmission(team.org.id);
    const other = await fileSubmission(team.org.id);
    const foreign = await fileSubmission(team.outsiderOrg.id, team.outsider);
    const urls = [
      submissionFileUrl(team.org.id, foreign.form.id, foreign.submissionId, 'receipt'),
      submissionFileUrl(team.org.id, other.form.id, ours.submissionId, 'receipt'),
      submissionFileUrl(team.org.id, ours.form.id, ours.submissionId, 'photo'),
      submissionFileUrl(team.org.id, ours.form.id, MISSING_ID, 'receipt'),
    ];
    for (const url of urls) {
      expectError(await call(t.app, 'GET', url, { as: team.admin }), notFoundBody('File'));
    }
    const crossed = submissionFileUrl(team.outsiderOrg.id, ours.form.id, ours.submissionId, 'receipt');
    expectError(await call(t.app, 'GET', crossed, { as: team.outsider }), notFoundBody('File'));
  });
});
