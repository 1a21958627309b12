import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import { multipart, PDF } from '../../../test/helpers/files.js';
import { publishedForm, submitUrl, type FormJson } from '../../../test/helpers/forms.js';
import {
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
import { newId } from '../../lib/ids.js';
import { formSubmissions } from './forms.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const csvUrl = (orgId: string, formId: string) => `/orgs/${orgId}/forms/${formId}/submissions.csv`;

const DISTRIBUTION_FIELDS = [
  { type: 'text', label: 'Name', key: 'name' },
  { type: 'number', label: 'Household size', key: 'household_size' },
  { type: 'multi_select', label: 'Items', key: 'items', options: ['soap', 'bucket', 'filter'] },
  { type: 'date', label: 'Distributed on', key: 'distributed_on' },
  { type: 'boolean', label: 'Signed', key: 'signed' },
  { type: 'location', label: 'Village', key: 'village' },
  { type: 'textarea', label: 'Notes', key: 'notes' },
  { type: 'file', label: 'Receipt', key: 'receipt' },
];
const HEADER = ['id', 'submittedAt', 'counted', 'location', ...DISTRIBUTION_FIELDS.map((f) => f.key)];

async function distributionForm(): Promise<{ form: FormJson; projectId: string }> {
  const project = await createProject(t.database.db, team.org.id);
  const form = await publishedForm(t.app, team.officer, team.org.id, {
    title: 'Hygiene kit distribution',
    projectId: project.id,
    fields: DISTRIBUTION_FIELDS,
  });
  return { form, projectId: project.id };
}

async function submit(form: FormJson, body: Record<string, unknown>, at: string) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  await t.database.db
    .update(formSubmissions)
    .set({ submittedAt: new Date(at) })
    .where(eq(formSubmissions.id, id));
  return id;
}

async function exported(form: FormJson, as: Caller = team.admin): Promise<string[][]> {
  const res = await call(t.app, 'GET', csvUrl(team.org.id, form.id), { as });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  const rows: string[][] = parse(res.response.body);
  return rows;
}

describe('GET /orgs/:orgId/forms/:id/submissions.csv', () => {
  it('writes one row per submission, oldest first, one column per field by key in form order', async () => {
    const { form } = await distributionForm();
    const newer = await submit(
      form,
      {
        answers: {
          name: 'Achieng',
          household_size: -3,
          items: ['filter', 'soap'],
          distributed_on: '2026-03-14',
          signed: true,
          village: { lat: -0.0917, lng: 34.768 },
          notes: 'Two kits',
        },
        location: { lat: -1.2921, lng: 36.8219, accuracy: 8 },
      },
      '2026-03-14T09:30:00.000Z',
    );
    const receipt = await call(t.app, 'POST', submitUrl(form.publicToken), {
      ...multipart([
        { name: 'data', value: JSON.stringify({ answers: { signed: false, village: 'Kisumu East' } }) },
        { name: 'receipt', value: PDF, fileName: 'receipt.pdf', contentType: 'application/pdf' },
      ]),
    });
    expect(receipt.status).toBe(201);
    await t.database.db
      .update(formSubmissions)
      .set({ submittedAt: new Date('2026-03-13T08:00:00.000Z') })
      .where(eq(formSubmissions.id, receipt.body.id as string));

    const res = await call(t.app, 'GET', csvUrl(team.org.id, form.id), { as: team.admin });
    expect(res.headers['content-disposition']).toBe('attachment; filename="Hygiene kit distribution.csv"');
    expect(await exported(form)).toEqual([
      HEADER,
      [
        receipt.body.id,
        '2026-03-13T08:00:00.000Z',
        'false',
        '',
        '',
        '',
        '',
        '',
        'false',
        'Kisumu East',
        '',
        `http://api.test/orgs/${team.org.id}/forms/${form.id}/submissions/${receipt.body.id}/files/receipt`,
      ],
      [
        newer,
        '2026-03-14T09:30:00.000Z',
        'false',
        '-1.2921,36.8219',
        'Achieng',
        '-3',
        'filter; soap',
        '2026-03-14',
        'true',
        '-0.0917,34.768',
        'Two kits',
        '',
      ],
    ]);
  });

  it('gives text that a spreadsheet would run a leading apostrophe', async () => {
    const { form } = await distributionForm();
    const texts = ['=HYPERLINK("http://evil.example")', '+1+1', '-2+3', '@SUM(A1)', 'plain = fine'];
    for (const [i, name] of texts.entries()) {
      await submit(form, { answers: { name } }, `2026-04-01T10:00:0${i}.000Z`);
    }
    const rows = await exported(form);
    expect(rows.slice(1).map((row) => row[4])).toEqual([
      `'=HYPERLINK("http://evil.example")`,
      `'+1+1`,
      `'-2+3`,
      `'@SUM(A1)`,
      'plain = fine',
    ]);
  });

  it('round-trips commas, quotes and newlines in answers', async () => {
    const { form } = await distributionForm();
    const name = 'Okafor, Ada "Mama Ada"';
    const notes = 'Line one,\nline "two"\r\nline three';
    await submit(form, { answers: { name, notes } }, '2026-04-02T10:00:00.000Z');
    const rows = await exported(form);
    expect(rows).toHaveLength(2);
    expect([rows[1]![4], rows[1]![10]]).toEqual([name, notes]);
  });

  it('exports more than 1000 submissions once each, in order across the 1000-row slices', async () => {
    const { form } = await distributionForm();
    const base = Date.parse('2026-05-01T00:00:00.000Z');
    // Three submissions share each timestamp, so ties straddle the slice boundaries (999 | 1000).
    const rows = Array.from({ length: 2503 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      formId: form.id,
      answers: { name: `Respondent ${i}` },
      counted: false,
      submittedAt: new Date(base + Math.floor(i / 3) * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.database.db.insert(formSubmissions).values(rows.slice(i, i + 500));
    }
    const expected = [...rows]
      .sort((a, b) => a.submittedAt.getTime() - b.submittedAt.getTime() || a.id.localeCompare(b.id))
      .map((row) => [row.id, row.submittedAt.toISOString(), row.answers.name]);
    const csv = await exported(form);
    expect(csv[0]).toEqual(HEADER);
    expect(csv.slice(1).map((row) => [row[0], row[1], row[4]])).toEqual(expected);
  });

  it('writes only the header for a form without submissions', async () => {
    const { form } = await distributionForm();
    expect(await exported(form)).toEqual([HEADER]);
  });

  it('lets every member read, reporters only on assigned projects; 401, outsider 403, foreign form 404', async () => {
    const { form, projectId } = await distributionForm();
    await submit(form, { answers: { name: 'Achieng' } }, '2026-04-03T10:00:00.000Z');
    const url = csvUrl(team.org.id, form.id);
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    expect(await exported(form, team.viewer)).toHaveLength(2);
    await assignProject(t.database.db, team.org.id, projectId, team.reporter.id);
    expect(await exported(form, team.reporter)).toHaveLength(2);

    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreign = await publishedForm(t.app, team.outsider, team.outsiderOrg.id, {
      projectId: foreignProject.id,
    });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', csvUrl(team.org.id, id), { as: team.admin }),
        notFoundBody('Form'),
      );
    }
    const crossed = await call(t.app, 'GET', csvUrl(team.outsiderOrg.id, form.id), { as: team.outsider });
    expectError(crossed, notFoundBody('Form'));
  });
});
