import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import {
  auditEntriesOf,
  eraseUrl,
  formUrl,
  PERSONAL_FIELDS,
  personalAnswers,
  postForm,
  publishedForm,
  SURVEY_FIELDS,
  submissionsCsvUrl,
  submissionsUrl,
  submitUrl,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  call,
  expectError,
  expectViolations,
  type Caller,
  ALL_ROLES,
  MANAGERS,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import type { FileStorage } from '../../storage/file-storage.js';
import { fieldProblems, type FormField } from './form-fields.js';
import { FormService } from './forms.service.js';
import { formSubmissions } from './forms.tables.js';
import {
  expectExportAfterErasure,
  officerEntry,
  withdrawConsent,
} from '../../../test/helpers/submission-audit.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const newProject = () => createProject(t.database.db, team.org.id);
const post = async (body: Record<string, unknown>) =>
  call(t.app, 'POST', `/orgs/${team.org.id}/forms`, {
    as: team.officer,
    body: { title: 'Consent survey', projectId: (await newProject()).id, fields: PERSONAL_FIELDS, ...body },
  });
const patch = (id: string, body: unknown) =>
  call(t.app, 'PATCH', formUrl(team.org.id, id), { as: team.officer, body });

/** A published form with personal fields in a fresh project, and that project's id. */
async function personalForm(fields: unknown[] = PERSONAL_FIELDS) {
  const project = await newProject();
  const form = await publishedForm(t.app, team.officer, team.org.id, { projectId: project.id, fields });
  return { form, projectId: project.id };
}

async function submit(form: FormJson, given: Record<string, unknown>, at?: string) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: given } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  if (at) {
    await t.database.db
      .update(formSubmissions)
      .set({ submittedAt: new Date(at) })
      .where(eq(formSubmissions.id, id));
  }
  return id;
}

async function listed(form: FormJson, as: Caller, query = '') {
  const res = await call(t.app, 'GET', `${submissionsUrl(team.org.id, form.id)}${query}`, { as });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function exported(form: FormJson, as: Caller): Promise<string[][]> {
  const res = await call(t.app, 'GET', submissionsCsvUrl(team.org.id, form.id), { as });
  expect(res.status, res.body as string).toBe(200);
  return parse(res.response.body);
}

const answersOf = (rows: { answers: Record<string, unknown> }[]) => rows.map((row) => row.answers);

/** What a viewer gets of any submission of PERSONAL_FIELDS, and anyone of an erased one. */
const HIDDEN = { name: null, age: null, born: null, home: null, story: null };
const HEADER = ['id', 'submittedAt', 'counted', 'location', ...PERSONAL_FIELDS.map((field) => field.key)];

describe('fields marked personal', () => {
  it('may be text, textarea, number, date or location fields; the response shows the flag as given', async () => {
    const res = await post({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.fields).toEqual(PERSONAL_FIELDS);
    const read = await call(t.app, 'GET', formUrl(team.org.id, res.body.id), { as: team.viewer });
    expect(read.body.fields).toEqual(PERSONAL_FIELDS);
  });

  it('refuses personal on any other type, naming each field by index, on create and on edit', async () => {
    const fields = [
      { type: 'text', label: 'Name', key: 'name', personal: true },
      { type: 'select', label: 'Source', key: 'source', options: ['well', 'tap'], personal: true },
      { type: 'multi_select', label: 'Crops', key: 'crops', options: ['maize'], personal: true },
      { type: 'boolean', label: 'Consent', key: 'consent', personal: true },
      { type: 'file', label: 'ID card', key: 'id_card', personal: true },
      { type: 'boolean', label: 'Adult', key: 'adult', personal: false },
    ];
    const allowed = 'is allowed only on text, textarea, number, date, location and calculate fields, not';
    const problems = [
      `fields.1.personal ${allowed} select`,
      `fields.2.personal ${allowed} multi_select`,
      `fields.3.personal ${allowed} boolean`,
      `fields.4.personal ${allowed} file`,
    ];
    expectViolations(await post({ fields }), ...problems);
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: (await newProject()).id });
    expectViolations(await patch(form.id, { fields }), ...problems);
    expectViolations(await patch(form.id, { personal: true }), 'property personal should not exist');
    expectViolations(
      await post({ fields: [{ type: 'text', label: 'Name', key: 'name', personal: 'yes' }] }),
      'fields.0.personal must be a boolean',
    );
  });

  it('are checked with the other field rules, all reported at once', () => {
    const fields = [
      { type: 'boolean', label: 'a', key: 'a', personal: true, options: ['x'] },
      { type: 'number', label: 'a', key: 'a', personal: true },
    ] as FormField[];
    expect(fieldProblems(fields)).toEqual([
      'fields.0.options should not exist for boolean fields',
      'fields.0.personal is allowed only on text, textarea, number, date, location and calculate fields, not boolean',
      'fields.1.key must be unique; a is used before',
    ]);
  });

  it('can be marked and unmarked on a form with submissions: the flag changes no stored answer', async () => {
    const { form } = await personalForm(SURVEY_FIELDS);
    await submit(form, { name: 'Achieng', source: 'well' });
    const marked = SURVEY_FIELDS.map((field) =>
      field.key === 'name' ? { ...field, personal: true } : field,
    );
    const res = await patch(form.id, { fields: marked });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(answersOf(await listed(form, team.viewer))).toEqual([{ name: null, source: 'well' }]);
    expect((await patch(form.id, { fields: SURVEY_FIELDS })).status).toBe(200);
    expect(answersOf(await listed(form, team.viewer))).toEqual([{ name: 'Achieng', source: 'well' }]);
  });
});

describe('personalDataRetentionDays', () => {
  it('is null unless given, taken on create, set and cleared on edit, returned by every form response', async () => {
    const plain = await post({});
    expect(plain.body.personalDataRetentionDays).toBeNull();
    const kept = await post({ personalDataRetentionDays: 365 });
    expect(kept.status).toBe(201);
    expect(kept.body.personalDataRetentionDays).toBe(365);
    const id = kept.body.id as string;

    const edited = await patch(id, { personalDataRetentionDays: 36_500 });
    expect([edited.status, edited.body.personalDataRetentionDays]).toEqual([200, 36_500]);
    expect((await patch(id, { title: 'Renamed' })).body.personalDataRetentionDays).toBe(36_500);
    const list = await call(t.app, 'GET', `/orgs/${team.org.id}/forms`, { as: team.viewer });
    expect(list.body.find((form: FormJson) => form.id === id).personalDataRetentionDays).toBe(36_500);
    const published = await call(t.app, 'POST', formUrl(team.org.id, id, 'publish'), { as: team.admin });
    expect(published.body.personalDataRetentionDays).toBe(36_500);
    const cleared = await patch(id, { personalDataRetentionDays: null });
    expect([cleared.status, cleared.body.personalDataRetentionDays]).toEqual([200, null]);
  });

  it('must be a whole number of days from 1 to 36500 (400)', async () => {
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: (await newProject()).id });
    const cases: [unknown, string][] = [
      [0, 'personalDataRetentionDays must not be less than 1'],
      [-30, 'personalDataRetentionDays must not be less than 1'],
      [36_501, 'personalDataRetentionDays must not be greater than 36500'],
      [1.5, 'personalDataRetentionDays must be an integer'],
      ['30', 'personalDataRetentionDays must be an integer'],
    ];
    for (const [value, message] of cases) {
      expectViolations(await post({ personalDataRetentionDays: value }), message);
      expectViolations(await patch(form.id, { personalDataRetentionDays: value }), message);
    }
    expect((await patch(form.id, { personalDataRetentionDays: 1 })).body.personalDataRetentionDays).toBe(1);
  });

  it('is set by managers only', async () => {
    const form = await postForm(t.app, team.officer, team.org.id, { projectId: (await newProject()).id });
    for (const as of [team.viewer, team.reporter]) {
      const res = await call(t.app, 'PATCH', formUrl(team.org.id, form.id), {
        as,
        body: { personalDataRetentionDays: 30 },
      });
      expectError(res, refusedTo(team, as, MANAGERS));
    }
  });
});

describe('personal answers in the submissions list (DECISIONS.md section 5)', () => {
  it('are null for viewers, whether answered or not; every other role gets them', async () => {
    const { form, projectId } = await personalForm();
    await submit(form, personalAnswers(), '2026-03-01T10:00:00.000Z');
    await submit(form, { source: 'tap' }, '2026-03-02T10:00:00.000Z');
    expect(answersOf(await listed(form, team.viewer))).toEqual([
      { ...HIDDEN, source: 'tap' },
      { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true },
    ]);
    await assignProject(t.database.db, team.org.id, projectId, team.reporter.id);
    for (const as of [team.admin, team.officer, team.reporter]) {
      expect(answersOf(await listed(form, as))).toEqual([{ source: 'tap' }, personalAnswers()]);
    }
  });

  it('keeps a reporter off projects not assigned to them (403, nothing recorded)', async () => {
    const { form } = await personalForm();
    await submit(form, personalAnswers());
    expectError(
      await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    expectError(
      await call(t.app, 'GET', submissionsCsvUrl(team.org.id, form.id), { as: team.reporter }),
      notAssigned(ALL_ROLES),
    );
    expect(await auditEntriesOf(t.database.db, form.id)).toEqual([]);
  });

  it('records each response that carries them in clear: who, from where, which submissions, which page', async () => {
    const { form, projectId } = await personalForm();
    const ids = [];
    for (const day of [1, 2, 3]) {
      ids.push(await submit(form, personalAnswers(), `2026-03-0${day}T10:00:00.000Z`));
    }
    await listed(form, team.officer);
    await listed(form, team.admin, '?page=2&limit=2');
    await assignProject(t.database.db, team.org.id, projectId, team.reporter.id);
    await listed(form, team.reporter, '?limit=1');
    const route = 'GET /orgs/:orgId/forms/:id/submissions';
    expect(await auditEntriesOf(t.database.db, form.id)).toEqual([
      officerEntry(team, {
        action: 'read',
        route,
        subjectIds: [ids[2], ids[1], ids[0]],
        count: 3,
        details: { formId: form.id },
      }),
      expect.objectContaining({
        actorId: team.admin.id,
        actorRole: 'org_admin',
        action: 'read',
        route,
        subjectIds: [ids[0]],
        count: 1,
        details: { formId: form.id, page: 2, limit: 2 },
      }),
      expect.objectContaining({
        actorId: team.reporter.id,
        actorRole: 'reporter',
        subjectIds: [ids[2]],
        count: 1,
        details: { formId: form.id, limit: 1 },
      }),
    ]);
  });

  it('records nothing for viewers, an empty page, a form without personal fields, or erased answers', async () => {
    const { form } = await personalForm();
    await listed(form, team.officer);
    const id = await submit(form, personalAnswers());
    await listed(form, team.viewer);
    await listed(form, team.officer, '?page=2&limit=1');
    const erased = await call(t.app, 'POST', eraseUrl(team.org.id, form.id, id), {
      as: team.admin,
      body: { reason: 'Asked by the respondent' },
    });
    expect(erased.status).toBe(200);
    expect(answersOf(await listed(form, team.officer))).toEqual([
      { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true },
    ]);
    expect((await auditEntriesOf(t.database.db, form.id)).map((entry) => entry.action)).toEqual(['erase']);

    const { form: plain } = await personalForm(SURVEY_FIELDS);
    await submit(plain, { name: 'Achieng', source: 'well' });
    expect(answersOf(await listed(plain, team.officer))).toEqual([{ name: 'Achieng', source: 'well' }]);
    expect(await auditEntriesOf(t.database.db, plain.id)).toEqual([]);
  });

  it('names only the submissions whose personal answers a page carried', async () => {
    const { form } = await personalForm();
    const kept = await submit(form, personalAnswers(), '2026-03-01T10:00:00.000Z');
    const gone = await submit(form, personalAnswers(), '2026-03-02T10:00:00.000Z');
    const erase = await withdrawConsent(t.app, team, form.id, gone);
    expect(erase.status).toBe(200);
    expect(answersOf(await listed(form, team.officer))).toEqual([
      { ...HIDDEN, source: 'well', village: 'Kisumu East', consent: true },
      personalAnswers(),
    ]);
    const [, read] = await auditEntriesOf(t.database.db, form.id);
    expect(read).toMatchObject({ action: 'read', subjectIds: [kept], count: 1 });
  });
});

describe('personal answers in the CSV export', () => {
  it('are empty cells for viewers and erased submissions, the columns kept; other roles get them', async () => {
    const { form, projectId } = await personalForm();
    const full = await submit(form, personalAnswers({ born: '1991-05-02' }), '2026-03-01T10:00:00.000Z');
    const gone = await submit(form, personalAnswers(), '2026-03-02T10:00:00.000Z');
    const erase = await withdrawConsent(t.app, team, form.id, gone);
    expect(erase.status).toBe(200);
    const erasedRow = [
      gone,
      '2026-03-02T10:00:00.000Z',
      'false',
      '',
      '',
      '',
      '',
      '',
      '',
      'well',
      'Kisumu East',
      'true',
    ];
    expect(await exported(form, team.viewer)).toEqual([
      HEADER,
      [full, '2026-03-01T10:00:00.000Z', 'false', '', '', '', '', '', '', 'well', 'Kisumu East', 'true'],
      erasedRow,
    ]);
    await assignProject(t.database.db, team.org.id, projectId, team.reporter.id);
    for (const as of [team.admin, team.officer, team.reporter]) {
      expect(await exported(form, as)).toEqual([
        HEADER,
        [
          full,
          '2026-03-01T10:00:00.000Z',
          'false',
          '',
          'Achieng Otieno',
          '34',
          '1991-05-02',
          '-0.0917,34.768',
          '',
          'well',
          'Kisumu East',
          'true',
        ],
        erasedRow,
      ]);
    }
  });

  it('records an export in clear as one entry counting the submissions it carried; none for viewers', async () => {
    const { form } = await personalForm();
    await exported(form, team.officer);
    for (const day of [1, 2, 3]) await submit(form, personalAnswers(), `2026-03-0${day}T10:00:00.000Z`);
    const gone = await submit(form, personalAnswers(), '2026-03-04T10:00:00.000Z');
    await withdrawConsent(t.app, team, form.id, gone);
    expect(await exported(form, team.viewer)).toHaveLength(5);
    expect(await exported(form, team.officer)).toHaveLength(5);
    await expectExportAfterErasure(t.database.db, team, form.id, {
      route: 'GET /orgs/:orgId/forms/:id/submissions.csv',
      count: 3,
      details: { formId: form.id },
    });
  });

  it('is recorded before the first byte of the stream: an export cut short keeps its entry', async () => {
    const { form } = await personalForm();
    await submit(form, personalAnswers());
    const service = new FormService(t.database.db, t.config, {} as FileStorage, t.app.log);
    const member = { orgId: team.org.id, userId: team.officer.id, role: 'me_officer' as const };
    const source = {
      orgId: team.org.id,
      actorId: team.officer.id,
      actorRole: 'me_officer',
      tokenId: null,
      tokenName: null,
      ip: null,
      requestId: null,
      route: 'GET /orgs/:orgId/forms/:id/submissions.csv',
    };
    const { csv } = await service.submissionsCsv(member, form.id, source);
    expect(await auditEntriesOf(t.database.db, form.id)).toMatchObject([{ action: 'export', count: 1 }]);
    csv.destroy();
  });
});
