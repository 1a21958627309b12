import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  auditEntriesOf,
  eraseUrl,
  formTargets,
  formUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  publishedForm,
  SURVEY_FIELDS,
  submissionsUrl,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  type Caller,
  ADMINS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { conflictBody } from '../../../test/helpers/indicator-scenes.js';
import { reportsUrl } from '../../../test/helpers/indicators.js';
import { formSubmissions } from './forms.tables.js';
import { ALREADY_ERASED } from '../privacy/index.js';
import { NOTHING_PERSONAL } from './submissions.service.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const REASON = 'The respondent asked for her answers to be erased';
const HIDDEN = { name: null, age: null, born: null, home: null, story: null };

/** A published form with personal fields, counting `age` into an indicator's report. */
async function countingForm(orgId = team.org.id, as = team.officer, fields: unknown[] = PERSONAL_FIELDS) {
  const targets = await formTargets(t.app, t.database.db, as, orgId);
  const form = await publishedForm(t.app, as, orgId, {
    projectId: targets.project.id,
    indicatorId: targets.indicator.id,
    reportingPeriodId: targets.period.id,
    valueFieldKey: 'age',
    fields,
  });
  return { targets, form };
}

async function submit(form: FormJson, given: Record<string, unknown> = personalAnswers()) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: given } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const erase = (
  form: FormJson,
  id: string,
  as: Caller | null = team.admin,
  body: unknown = { reason: REASON },
) => call(t.app, 'POST', eraseUrl(team.org.id, form.id, id), { as, body });

async function stored(id: string) {
  const [row] = await t.database.db.select().from(formSubmissions).where(eq(formSubmissions.id, id));
  return row!;
}

async function reportValue(targets: Awaited<ReturnType<typeof formTargets>>) {
  const query = `?indicatorId=${targets.indicator.id}&periodId=${targets.period.id}`;
  const res = await call(t.app, 'GET', `${reportsUrl(team.org.id, targets.project.id)}${query}`, {
    as: team.admin,
  });
  return (res.body as { value: number }[])[0]?.value;
}

describe('POST /orgs/:orgId/forms/:formId/submissions/:id/erase', () => {
  it("removes the personal answers from the stored row, keeps the rest and the report's count", async () => {
    const { targets, form } = await countingForm();
    const id = await submit(form, personalAnswers({ born: '1991-05-02', story: 'We walk far.' }));
    const other = await submit(form, personalAnswers({ age: 6 }));
    expect(await reportValue(targets)).toBe(40);
    const before = await stored(id);

    const res = await erase(form, id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id,
      submittedAt: before.submittedAt.toISOString(),
      location: null,
      counted: true,
      countedReason: null,
      answers: { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true },
    });
    const row = await stored(id);
    expect(row.answers).toEqual({ source: 'well', village: 'Kisumu East', consent: true });
    expect(row.personalErasedAt).toBeInstanceOf(Date);
    expect(row.counted).toBe(true);
    expect((await stored(other)).answers).toEqual(personalAnswers({ age: 6 }));
    expect((await stored(other)).personalErasedAt).toBeNull();
    expect(await reportValue(targets)).toBe(40);

    const read = await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.admin });
    expect(read.body.submissionCount).toBe(2);
    const listed = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.admin });
    expect(listed.body.map((s: { id: string }) => s.id)).toEqual([other, id]);
    expect(listed.body[1]).toEqual(res.body);
  });

  it('records the erasure with its reason in the same transaction', async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    expect((await erase(form, id, team.admin, { reason: `  ${REASON} ` })).status).toBe(200);
    expect(await auditEntriesOf(t.database.db, form.id)).toEqual([
      {
        id: expect.any(Number),
        orgId: team.org.id,
        at: expect.any(Date),
        actorId: team.admin.id,
        actorRole: 'org_admin',
        tokenId: null,
        tokenName: null,
        ip: '127.0.0.1',
        requestId: expect.any(String),
        action: 'erase',
        route: 'POST /orgs/:orgId/forms/:formId/submissions/:id/erase',
        subjectKind: 'form_submission',
        subjectIds: [id],
        count: 1,
        details: { formId: form.id, reason: REASON },
      },
    ]);
  });

  it('answers 409 to a second erasure, and writes no second entry', async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    expect((await erase(form, id)).status).toBe(200);
    const erasedAt = (await stored(id)).personalErasedAt;
    expectError(await erase(form, id), conflictBody(ALREADY_ERASED.form_submission));
    expect((await stored(id)).personalErasedAt).toEqual(erasedAt);
    expect(await auditEntriesOf(t.database.db, form.id)).toHaveLength(1);
  });

  it('lets one of two concurrent erasures through and answers the other 409', async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    const results = await Promise.all([erase(form, id), erase(form, id)]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    expect(results.find((res) => res.status === 409)!.body).toEqual(
      conflictBody(ALREADY_ERASED.form_submission),
    );
    expect(await auditEntriesOf(t.database.db, form.id)).toHaveLength(1);
  });

  it('erases again an answer of a field marked personal after the erasure, then 409', async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    expect((await erase(form, id)).status).toBe(200);
    const marked = PERSONAL_FIELDS.map((field) =>
      field.key === 'village' ? { ...field, personal: true } : field,
    );
    const edit = await call(t.app, 'PATCH', formUrl(team.org.id, form.id), {
      as: team.officer,
      body: { fields: marked },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    // Hidden from everyone at once, as the submission was erased; still stored until erased again.
    const listed = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.admin });
    expect(listed.body[0].answers).toEqual({ ...HIDDEN, village: null, source: 'well', consent: true });
    expect((await stored(id)).answers).toHaveProperty('village', 'Kisumu East');

    expect((await erase(form, id)).status).toBe(200);
    expect((await stored(id)).answers).toEqual({ source: 'well', consent: true });
    expectError(await erase(form, id), conflictBody(ALREADY_ERASED.form_submission));
    expect((await auditEntriesOf(t.database.db, form.id)).map((entry) => entry.action)).toEqual([
      'erase',
      'erase',
    ]);
  });

  it('answers 409 for a submission without a position, of a form without fields marked personal: nothing to erase', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      fields: SURVEY_FIELDS,
    });
    const id = await submit(form, { name: 'Achieng', source: 'well' });
    expectError(await erase(form, id), conflictBody(NOTHING_PERSONAL));
    expect((await stored(id)).personalErasedAt).toBeNull();
    expect(await auditEntriesOf(t.database.db, form.id)).toEqual([]);
  });

  it('needs a reason: 1 to 1000 characters, not blank (400)', async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    expectViolations(await erase(form, id, team.admin, {}), 'reason is required');
    expectViolations(await erase(form, id, team.admin, { reason: '' }), 'reason should not be empty');
    expectViolations(await erase(form, id, team.admin, { reason: ' \t ' }), 'reason should not be empty');
    expectViolations(await erase(form, id, team.admin, { reason: 7 }), 'reason must be a string');
    expectViolations(
      await erase(form, id, team.admin, { reason: 'x'.repeat(1001) }),
      'reason must be at most 1000 characters',
    );
    expectViolations(
      await erase(form, id, team.admin, { reason: REASON, answers: {} }),
      'property answers should not exist',
    );
    expect((await stored(id)).personalErasedAt).toBeNull();
    expect((await erase(form, id, team.admin, { reason: 'x'.repeat(1000) })).status).toBe(200);
  });

  it('is for org_admins only: 401 without a session, 403 for every other role and for outsiders', async () => {
    const { targets, form } = await countingForm();
    const id = await submit(form);
    await assignProject(t.database.db, team.org.id, targets.project.id, team.reporter.id);
    expectError(await erase(form, id, null), UNAUTHORIZED);
    for (const as of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectError(await erase(form, id, as), refusedTo(team, as, ADMINS));
    }
    expect((await stored(id)).answers).toEqual(personalAnswers());
    expect(await auditEntriesOf(t.database.db, form.id)).toEqual([]);
  });

  it("answers 404 for another organization's form or submission, and a submission of another form", async () => {
    const { form } = await countingForm();
    const id = await submit(form);
    const { form: sibling } = await countingForm();
    const siblingId = await submit(sibling);
    const { form: foreign } = await countingForm(team.outsiderOrg.id, team.outsider);
    const foreignId = await submit(foreign);

    const at = (formId: string, submissionId: string) =>
      call(t.app, 'POST', eraseUrl(team.org.id, formId, submissionId), {
        as: team.admin,
        body: { reason: REASON },
      });
    expectError(await at(foreign.id, foreignId), notFoundBody('Form'));
    expectError(await at(MISSING_ID, id), notFoundBody('Form'));
    expectError(await at(form.id, foreignId), notFoundBody('Submission'));
    expectError(await at(form.id, siblingId), notFoundBody('Submission'));
    expectError(await at(form.id, MISSING_ID), notFoundBody('Submission'));
    // The outsider, admin of their own organization, cannot reach ours through theirs.
    const crossed = await call(t.app, 'POST', eraseUrl(team.outsiderOrg.id, form.id, id), {
      as: team.outsider,
      body: { reason: REASON },
    });
    expectError(crossed, notFoundBody('Form'));
    for (const submission of [id, siblingId, foreignId]) {
      expect((await stored(submission)).personalErasedAt).toBeNull();
    }
  });

  it('answers 400 for ids that are not UUIDs', async () => {
    const { form } = await countingForm();
    const res = await call(t.app, 'POST', eraseUrl(team.org.id, form.id, 'not-an-id'), {
      as: team.admin,
      body: { reason: REASON },
    });
    expectViolations(res, 'id must be a UUID');
  });
});
