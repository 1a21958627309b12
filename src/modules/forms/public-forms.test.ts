import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../../test/helpers/app.js';
import { createOrg, createProject, registerUser } from '../../../test/helpers/factories.js';
import { multipart, PNG, type Part } from '../../../test/helpers/files.js';
import {
  answers,
  formUrl,
  formsUrl,
  postForm,
  publicFormUrl,
  publishedForm,
  submissionFileUrl,
  submissionsUrl,
  submitUrl,
  SURVEY_FIELDS,
  type FormJson,
} from '../../../test/helpers/forms.js';
import {
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
} from '../../../test/helpers/http.js';
import { forms, formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const CLOSED = {
  statusCode: 410,
  message: 'This form is no longer accepting responses',
  error: 'Gone',
  code: 'form_closed' as const,
};
const FILE_TYPES = 'PDF, JPEG, PNG, WebP, DOCX, XLSX or CSV';
const PHOTO_FIELDS = [
  { type: 'text', label: 'Name', key: 'name' },
  { type: 'file', label: 'Photo of the water point', key: 'photo', required: true },
];

async function survey(body: Record<string, unknown> = {}): Promise<FormJson> {
  const project = await createProject(t.database.db, team.org.id);
  return publishedForm(t.app, team.officer, team.org.id, { projectId: project.id, ...body });
}

const submit = (form: FormJson, body: unknown) =>
  call(t.app, 'POST', submitUrl(form.publicToken), { body: body as object });

const submitParts = (form: FormJson, parts: Part[]) =>
  call(t.app, 'POST', submitUrl(form.publicToken), multipart(parts));

const dataPart = (value: unknown): Part => ({ name: 'data', value: JSON.stringify(value) });
const photoPart = (value: Buffer | string = PNG, fileName = 'well.png'): Part => ({
  name: 'photo',
  value,
  fileName,
  contentType: 'image/png',
});

async function storedAnswers(form: FormJson) {
  const res = await call(t.app, 'GET', submissionsUrl(team.org.id, form.id), { as: team.admin });
  expect(res.status).toBe(200);
  return res.body as { id: string; answers: Record<string, unknown>; location: unknown }[];
}

function storedFiles(): string[] {
  const root = path.join(t.config.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe('GET /forms/public/:token', () => {
  it('shows a published form to anyone as exactly { title, description, fields, closesAt, language, languages }', async () => {
    const form = await survey({
      description: 'Ask the head of household.',
      closesAt: '2099-01-01T00:00:00.000Z',
    });
    const res = await call(t.app, 'GET', publicFormUrl(form.publicToken));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      title: 'Household water survey',
      description: 'Ask the head of household.',
      fields: SURVEY_FIELDS,
      closesAt: '2099-01-01T00:00:00.000Z',
      language: 'en',
      languages: [{ code: 'en', name: 'English' }],
    });
    expect(JSON.stringify(res.body)).not.toContain(form.id);
    expect(JSON.stringify(res.body)).not.toContain(form.projectId);
  });

  it('answers 404 Form not found to unknown, malformed and unpublished tokens, on both endpoints', async () => {
    const draft = await postForm(t.app, team.officer, team.org.id, {
      projectId: (await createProject(t.database.db, team.org.id)).id,
    });
    const withdrawn = await survey();
    const unpublish = await call(t.app, 'POST', formUrl(team.org.id, withdrawn.id, 'unpublish'), {
      as: team.officer,
    });
    expect(unpublish.status).toBe(200);
    for (const token of [
      MISSING_ID,
      'not-a-token',
      'x'.repeat(200),
      draft.publicToken,
      withdrawn.publicToken,
    ]) {
      expectError(await call(t.app, 'GET', publicFormUrl(token)), notFoundBody('Form'));
      const res = await call(t.app, 'POST', submitUrl(token), { body: { answers: answers() } });
      expectError(res, notFoundBody('Form'));
    }
    const rows = await t.database.db
      .select()
      .from(formSubmissions)
      .where(eq(formSubmissions.formId, withdrawn.id));
    expect(rows).toEqual([]);
  });

  it('answers 410 on both endpoints once closesAt has passed, and stores nothing', async () => {
    const form = await survey({ closesAt: '2099-01-01T00:00:00.000Z' });
    await t.database.db
      .update(forms)
      .set({ closesAt: new Date(Date.now() - 1000) })
      .where(eq(forms.id, form.id));
    expectError(await call(t.app, 'GET', publicFormUrl(form.publicToken)), CLOSED);
    expectError(await submit(form, { answers: answers() }), CLOSED);
    expectError(await submitParts(form, [dataPart({ answers: answers() })]), CLOSED);
    expect(await storedAnswers(form)).toEqual([]);
  });
});

describe('POST /forms/public/:token/submit with JSON', () => {
  it('stores a response without a session: 201 { id, submittedAt }', async () => {
    const form = await survey();
    const location = { lat: -1.2921, lng: 36.8219, accuracy: 12 };
    const res = await submit(form, { answers: answers(), location });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), submittedAt: expect.stringMatching(TIMESTAMP) });
    expect(await storedAnswers(form)).toEqual([
      {
        id: res.body.id,
        submittedAt: res.body.submittedAt,
        location,
        counted: false,
        countedReason: 'not_counting',
        answers: answers(),
      },
    ]);
  });

  it('does not require a field hidden by showIf, and discards its answer', async () => {
    const form = await survey();
    const hidden = await submit(form, { answers: answers({ source: 'well', river_reason: 'It is closer' }) });
    expect(hidden.status).toBe(201);
    const shown = await submit(form, { answers: answers({ source: 'river', river_reason: 'It is closer' }) });
    expect(shown.status).toBe(201);
    const stored = await storedAnswers(form);
    expect(stored.find((s) => s.id === hidden.body.id)!.answers).toEqual(answers({ source: 'well' }));
    expect(stored.find((s) => s.id === shown.body.id)!.answers).toEqual(
      answers({ source: 'river', river_reason: 'It is closer' }),
    );
    expectViolations(
      await submit(form, { answers: answers({ source: 'river' }) }),
      'answers.river_reason is required',
    );
  });

  it('refuses unknown answer keys and body properties', async () => {
    const form = await survey();
    const res = await submit(form, { answers: answers({ colour: 'blue' }), respondent: 'Achieng' });
    expectViolations(
      res,
      'answers.colour is not a field of this form',
      'property respondent should not exist',
    );
    expectViolations(
      await submit(form, {}),
      'answers is required',
      'answers.name is required',
      'answers.source is required',
    );
    expect(await storedAnswers(form)).toEqual([]);
  });

  it('lists every problem at once, one message each', async () => {
    const form = await survey();
    const res = await submit(form, {
      answers: { name: '   ', household_size: 'five', source: 'lake', consent: 'yes' },
      location: { lat: 100, lng: 36.8 },
    });
    expectViolations(
      res,
      'answers.name is required',
      'answers.household_size must be a number',
      'answers.source must be one of well, river, tap',
      'answers.consent must be a boolean',
      'location.lat must be between -90 and 90',
    );
  });

  it('checks each field type by its own rule', async () => {
    const form = await survey({
      fields: [
        { type: 'text', label: 'Name', key: 'name' },
        { type: 'textarea', label: 'Notes', key: 'notes' },
        { type: 'date', label: 'Visit date', key: 'visited_on' },
        { type: 'multi_select', label: 'Uses', key: 'uses', options: ['drinking', 'cooking', 'washing'] },
        { type: 'location', label: 'Water point', key: 'water_point' },
      ],
    });
    const bad = await submit(form, {
      answers: {
        name: 'x'.repeat(2001),
        notes: 'y'.repeat(20_001),
        visited_on: '2026-02-30',
        uses: ['drinking', 'drinking'],
        water_point: { lat: 0, lng: 200 },
      },
    });
    expectViolations(
      bad,
      'answers.name must be at most 2000 characters',
      'answers.notes must be at most 20000 characters',
      'answers.visited_on must be a valid date (YYYY-MM-DD)',
      'answers.uses must not contain duplicates',
      'answers.water_point.lng must be between -180 and 180',
    );
    const good = {
      name: 'x'.repeat(2000),
      notes: 'y'.repeat(20_000),
      visited_on: '2028-02-29',
      uses: ['washing', 'drinking'],
      water_point: 'Next to the school',
    };
    expect((await submit(form, { answers: good })).status).toBe(201);
    expect((await storedAnswers(form))[0]!.answers).toEqual(good);
  });
});

describe('POST /forms/public/:token/submit with multipart/form-data', () => {
  it('stores a real PNG that an admin downloads as the same bytes', async () => {
    const form = await survey({ fields: PHOTO_FIELDS });
    const res = await submitParts(form, [dataPart({ answers: { name: 'Achieng' } }), photoPart()]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), submittedAt: expect.stringMatching(TIMESTAMP) });
    const url = submissionFileUrl(team.org.id, form.id, res.body.id, 'photo');
    expect((await storedAnswers(form))[0]!.answers).toEqual({
      name: 'Achieng',
      photo: { fileName: 'well.png', contentType: 'image/png', size: PNG.length, url },
    });
    const download = await call(t.app, 'GET', url, { as: team.admin });
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.response.rawPayload.equals(PNG)).toBe(true);
  });

  it('refuses text bytes named .png with a 400 naming the field, and keeps nothing', async () => {
    const form = await survey({ fields: [PHOTO_FIELDS[0], { ...PHOTO_FIELDS[1], required: false }] });
    const before = storedFiles().length;
    const fake = photoPart('just some text, honestly', 'fake.png');
    const res = await submitParts(form, [dataPart({ answers: { name: 'Achieng' } }), fake]);
    expectViolations(res, `answers.photo must be a ${FILE_TYPES} file`);
    expect(storedFiles().length).toBe(before);
    expect(await storedAnswers(form)).toEqual([]);
  });

  it('reports a refused file of a required field once, as the wrong type, not also as missing', async () => {
    const form = await survey({ fields: PHOTO_FIELDS });
    const fake = photoPart('just some text, honestly', 'fake.png');
    const res = await submitParts(form, [dataPart({ answers: { name: 'Achieng' } }), fake]);
    expectViolations(res, `answers.photo must be a ${FILE_TYPES} file`);
  });

  it('refuses a file part for a field that is not a file field, or for no field at all', async () => {
    const form = await survey({ fields: PHOTO_FIELDS });
    const before = storedFiles().length;
    const asName = { ...photoPart(), name: 'name' };
    expectViolations(
      await submitParts(form, [dataPart({ answers: { name: 'Achieng' } }), asName]),
      'answers.name is not a file field',
      'answers.photo is required',
    );
    const stray = { ...photoPart(), name: 'selfie' };
    expectViolations(
      await submitParts(form, [stray]),
      'answers.selfie is not a field of this form',
      'answers.photo is required',
    );
    expect(storedFiles().length).toBe(before);
    expect(await storedAnswers(form)).toEqual([]);
  });

  it('takes files alone when the data part is left out, and still requires required fields', async () => {
    const form = await survey({ fields: PHOTO_FIELDS });
    const res = await submitParts(form, [photoPart()]);
    expect(res.status).toBe(201);
    expect((await storedAnswers(form))[0]!.answers).toEqual({
      photo: expect.objectContaining({ fileName: 'well.png', size: PNG.length }),
    });
    expectViolations(
      await submitParts(form, [dataPart({ answers: { name: 'A' } })]),
      'answers.photo is required',
    );
    expectViolations(
      await submitParts(form, [{ name: 'data', value: '{not json' }, photoPart()]),
      'data must be JSON',
    );
  });

  it('answers 413 to a file over 10 MiB and keeps nothing', async () => {
    const form = await survey({ fields: PHOTO_FIELDS });
    const before = storedFiles().length;
    const big = Buffer.concat([PNG, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await submitParts(form, [photoPart(big, 'huge.png')]);
    expectError(res, {
      statusCode: 413,
      message: 'file must not be larger than 10 MiB',
      error: 'Payload Too Large',
      code: 'payload_too_large',
    });
    expect(storedFiles().length).toBe(before);
    expect(await storedAnswers(form)).toEqual([]);
  });
});

describe('rate limits of the public form routes (DECISIONS.md section 12)', () => {
  it('spend their own bucket of PUBLIC_RATE_LIMIT_MAX, apart from the general one', async () => {
    // Counted in memory: with REDIS_URL every test file would spend one shared count for 127.0.0.1
    // (sharing through Redis is tested in test/rate-limit.test.ts).
    const limited = await buildTestApp({ PUBLIC_RATE_LIMIT_MAX: '7', RATE_LIMIT_MAX: '50', REDIS_URL: '' });
    try {
      const admin = await registerUser(limited.app);
      const org = await createOrg(limited.app, admin);
      const project = await createProject(limited.database.db, org.id);
      const form = await publishedForm(limited.app, admin, org.id, { projectId: project.id });

      const read = await call(limited.app, 'GET', publicFormUrl(form.publicToken));
      expect([read.status, read.headers['x-ratelimit-limit'], read.headers['x-ratelimit-remaining']]).toEqual(
        [200, '7', '6'],
      );
      const sent = await call(limited.app, 'POST', submitUrl(form.publicToken), {
        body: { answers: answers() },
      });
      expect([sent.status, sent.headers['x-ratelimit-limit'], sent.headers['x-ratelimit-remaining']]).toEqual(
        [201, '7', '5'],
      );
      const general = await call(limited.app, 'GET', formsUrl(org.id), { as: admin });
      expect([general.status, general.headers['x-ratelimit-limit']]).toEqual([200, '50']);
    } finally {
      await limited.close();
    }
  });
});
