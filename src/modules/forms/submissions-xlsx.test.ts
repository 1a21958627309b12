import { eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import { multipart, PDF } from '../../../test/helpers/files.js';
import { auditEntriesOf, publishedForm, submitUrl, type FormJson } from '../../../test/helpers/forms.js';
import {
  ALL_ROLES,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notAMember,
  notAssigned,
  notFoundBody,
  UNAUTHORIZED,
  type Caller,
} from '../../../test/helpers/http.js';
import { expectExportAfterErasure, withdrawConsent } from '../../../test/helpers/submission-audit.js';
import { useSuite } from '../../../test/helpers/suite.js';
import { newId } from '../../lib/ids.js';
import { formSubmissions } from './forms.tables.js';

const { t, team } = useSuite();

const xlsxUrl = (orgId: string, formId: string, query = '') =>
  `/orgs/${orgId}/forms/${formId}/submissions.xlsx${query}`;

/** A household visit: one field of each kind, a group, a repeat holding a repeat, and personal answers. */
const VISIT_FIELDS = [
  { type: 'text', label: 'Head of household', key: 'head', personal: true },
  {
    type: 'select',
    label: 'Water source',
    key: 'source',
    choices: [
      { name: 'well', label: 'Protected well' },
      { name: 'river', label: 'River or stream' },
    ],
  },
  {
    type: 'multi_select',
    label: 'Items received',
    key: 'items',
    choices: [
      { name: 'soap', label: 'Soap' },
      { name: 'bucket', label: 'Bucket' },
      { name: 'filter', label: 'Water filter' },
    ],
  },
  {
    type: 'group',
    label: 'Visit',
    key: 'visit',
    fields: [
      { type: 'date', label: 'Visited on', key: 'visited_on' },
      { type: 'number', label: 'Household size', key: 'household_size' },
    ],
  },
  { type: 'boolean', label: 'Consent', key: 'consent' },
  { type: 'note', label: 'Thank you', key: 'thanks' },
  { type: 'file', label: 'Receipt', key: 'receipt' },
  {
    type: 'repeat',
    label: 'Household members',
    key: 'members',
    fields: [
      { type: 'text', label: 'Name', key: 'member_name', personal: true },
      { type: 'number', label: 'Age', key: 'age' },
      {
        type: 'select',
        label: 'Sex',
        key: 'sex',
        choices: [
          { name: 'f', label: 'Female' },
          { name: 'm', label: 'Male' },
        ],
      },
      {
        type: 'repeat',
        label: 'Illnesses',
        key: 'illnesses',
        fields: [{ type: 'text', label: 'Illness', key: 'illness' }],
      },
    ],
  },
];

const TRANSLATIONS = {
  fr: {
    fields: {
      source: { label: "Source d'eau", choices: { well: 'Puits protégé' } },
      members: { label: 'Membres du ménage' },
      sex: { choices: { f: 'Femme' } },
    },
  },
};

async function visitForm(): Promise<{ form: FormJson; projectId: string }> {
  const project = await createProject(t.database.db, team.org.id);
  const form = await publishedForm(t.app, team.officer, team.org.id, {
    title: 'Household visit',
    projectId: project.id,
    fields: VISIT_FIELDS,
    translations: TRANSLATIONS,
  });
  return { form, projectId: project.id };
}

/** Sets when a submission was made, so that the order is known. */
const dated = (id: string, at: string) =>
  t.database.db
    .update(formSubmissions)
    .set({ submittedAt: new Date(at) })
    .where(eq(formSubmissions.id, id));

async function submit(form: FormJson, body: Record<string, unknown>, at: string) {
  const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await dated(res.body.id as string, at);
  return res.body.id as string;
}

/** Two visits: one full (with members, one of whom had illnesses), one with a receipt and little else. */
async function visits(form: FormJson) {
  const full = await submit(
    form,
    {
      answers: {
        head: 'Achieng Otieno',
        source: 'well',
        items: ['filter', 'soap'],
        visited_on: '2026-03-14',
        household_size: 4,
        consent: true,
        members: [
          { member_name: 'Achieng', age: 34, sex: 'f', illnesses: [] },
          {
            member_name: 'Baraka',
            age: 3,
            sex: 'm',
            illnesses: [{ illness: 'Malaria' }, { illness: '=1+1' }],
          },
        ],
      },
      location: { lat: -1.2921, lng: 36.8219 },
    },
    '2026-03-14T09:30:00.000Z',
  );
  const receipt = await call(t.app, 'POST', submitUrl(form.publicToken), {
    ...multipart([
      { name: 'data', value: JSON.stringify({ answers: { source: 'river', consent: false } }) },
      { name: 'receipt', value: PDF, fileName: 'receipt.pdf', contentType: 'application/pdf' },
    ]),
  });
  expect(receipt.status, JSON.stringify(receipt.body)).toBe(201);
  const small = receipt.body.id as string;
  await dated(small, '2026-03-15T08:00:00.000Z');
  return { full, small };
}

async function workbookOf(form: FormJson, as: Caller = team.admin, query = '') {
  const res = await call(t.app, 'GET', xlsxUrl(team.org.id, form.id, query), { as });
  expect(res.status, res.body as string).toBe(200);
  expect(res.headers['content-type']).toBe(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(res.response.rawPayload as unknown as ArrayBuffer);
  return { workbook, res };
}

/** A sheet's rows as arrays of cell values (exceljs numbers cells from 1: the first is dropped). */
const rowsOf = (sheet: ExcelJS.Worksheet) =>
  sheet
    .getSheetValues()
    .flatMap((row) => (Array.isArray(row) ? [Array.from(row.slice(1), (v) => v ?? null)] : []));

const MAIN_NAMES = [
  'id',
  'submittedAt',
  'counted',
  'location',
  'head',
  'source',
  'items',
  'visited_on',
  'household_size',
  'consent',
  'receipt',
  'members',
];

describe('GET /orgs/:orgId/forms/:id/submissions.xlsx', () => {
  it('writes labels over names, frozen, then one row per submission with answers as values and labels', async () => {
    const { form } = await visitForm();
    const { full, small } = await visits(form);
    const { workbook, res } = await workbookOf(form);
    expect(res.headers['content-disposition']).toBe('attachment; filename="Household visit.xlsx"');
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Submissions', 'members', 'illnesses']);
    const sheet = workbook.getWorksheet('Submissions')!;
    expect(sheet.views).toEqual([expect.objectContaining({ state: 'frozen', xSplit: 1, ySplit: 2 })]);
    const rows = rowsOf(sheet);
    expect(rows).toEqual([
      [
        'Submission ID',
        'Submitted at (UTC)',
        'Counted',
        'Location',
        'Head of household',
        'Water source',
        'Items received',
        'Visited on',
        'Household size',
        'Consent',
        'Receipt',
        'Household members',
      ],
      MAIN_NAMES,
      [
        full,
        new Date('2026-03-14T09:30:00.000Z'),
        false,
        '-1.2921,36.8219',
        'Achieng Otieno',
        'Protected well',
        'Water filter; Soap',
        new Date('2026-03-14T00:00:00.000Z'),
        4,
        true,
        null,
        2,
      ],
      [
        small,
        new Date('2026-03-15T08:00:00.000Z'),
        false,
        null,
        null,
        'River or stream',
        null,
        null,
        null,
        false,
        `http://api.test/orgs/${team.org.id}/forms/${form.id}/submissions/${small}/files/receipt`,
        // The public route stores a repeat left out as no entries.
        0,
      ],
    ]);
    expect(sheet.getRow(1).font).toMatchObject({ bold: true });
    expect(sheet.getCell('B3').numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(sheet.getCell('H3').numFmt).toBe('yyyy-mm-dd');
  });

  it('gives each repeat a sheet: the submission, the entry at each level, then its fields; text stays text', async () => {
    const { form } = await visitForm();
    const { full } = await visits(form);
    const { workbook } = await workbookOf(form);
    const members = workbook.getWorksheet('members')!;
    expect(members.views).toEqual([expect.objectContaining({ state: 'frozen', xSplit: 2, ySplit: 2 })]);
    expect(rowsOf(members)).toEqual([
      ['Submission ID', 'Entry', 'Name', 'Age', 'Sex', 'Illnesses'],
      ['submission_id', 'entry', 'member_name', 'age', 'sex', 'illnesses'],
      [full, 1, 'Achieng', 34, 'Female', 0],
      [full, 2, 'Baraka', 3, 'Male', 2],
    ]);
    const illnesses = workbook.getWorksheet('illnesses')!;
    expect(rowsOf(illnesses)).toEqual([
      ['Submission ID', 'Household members entry', 'Entry', 'Illness'],
      ['submission_id', 'members_entry', 'entry', 'illness'],
      [full, 2, 1, 'Malaria'],
      [full, 2, 2, '=1+1'],
    ]);
    // A string cell, not a formula: what the respondent typed, nothing run.
    expect(illnesses.getCell('D4').type).toBe(ExcelJS.ValueType.String);
  });

  it('labels in the language asked for, the default language where a string is not translated', async () => {
    const { form } = await visitForm();
    await visits(form);
    const { workbook } = await workbookOf(form, team.admin, '?lang=fr-CA');
    const rows = rowsOf(workbook.getWorksheet('Submissions')!);
    expect(rows[0]!.slice(4, 6)).toEqual(['Head of household', "Source d'eau"]);
    expect(rows[1]).toEqual(MAIN_NAMES);
    expect(rows[0]![11]).toBe('Membres du ménage');
    expect(rows.slice(2).map((row) => row[5])).toEqual(['Puits protégé', 'River or stream']);
    expect(
      rowsOf(workbook.getWorksheet('members')!)
        .slice(2)
        .map((row) => row[4]),
    ).toEqual(['Femme', 'Male']);
  });

  it('hides personal answers and positions from viewers, in the repeats too; records one entry for a reader in clear', async () => {
    const { form } = await visitForm();
    const { full, small } = await visits(form);
    const erased = await submit(
      form,
      {
        answers: { head: 'Dalila', members: [{ member_name: 'Dalila', age: 40 }] },
        location: { lat: 1, lng: 2 },
      },
      '2026-03-16T08:00:00.000Z',
    );
    const erase = await withdrawConsent(t.app, team, form.id, erased);
    expect(erase.status).toBe(200);

    const seen = await workbookOf(form, team.viewer);
    const main = rowsOf(seen.workbook.getWorksheet('Submissions')!);
    expect(main.slice(2).map((row) => [row[0], row[3], row[4]])).toEqual([
      [full, null, null],
      [small, null, null],
      [erased, null, null],
    ]);
    const members = rowsOf(seen.workbook.getWorksheet('members')!);
    expect(members.slice(2).map((row) => [row[2], row[3]])).toEqual([
      [null, 34],
      [null, 3],
      [null, 40],
    ]);
    expect((await auditEntriesOf(t.database.db, form.id)).map((entry) => entry.action)).toEqual(['erase']);

    const read = await workbookOf(form, team.officer);
    const clear = rowsOf(read.workbook.getWorksheet('Submissions')!);
    expect(clear.slice(2).map((row) => [row[3], row[4]])).toEqual([
      ['-1.2921,36.8219', 'Achieng Otieno'],
      [null, null],
      [null, null],
    ]);
    expect(
      rowsOf(read.workbook.getWorksheet('members')!)
        .slice(2)
        .map((row) => row[2]),
    ).toEqual(['Achieng', 'Baraka', null]);
    await expectExportAfterErasure(t.database.db, team, form.id, {
      route: 'GET /orgs/:orgId/forms/:id/submissions.xlsx',
      count: 2,
      details: { formId: form.id },
    });
  });

  it('exports more than 1000 submissions once each, in order across slices, the repeat sheets matching', async () => {
    const { form } = await visitForm();
    const base = Date.parse('2026-05-01T00:00:00.000Z');
    // Three submissions share each timestamp, so ties straddle the slice boundaries.
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      id: newId(),
      orgId: team.org.id,
      formId: form.id,
      answers: {
        source: i % 2 ? 'river' : 'well',
        members: i % 600 === 0 ? [{ age: i }, { age: i + 1 }] : [],
      },
      counted: false,
      submittedAt: new Date(base + Math.floor(i / 3) * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.database.db.insert(formSubmissions).values(rows.slice(i, i + 500));
    }
    const ordered = [...rows].sort(
      (a, b) => a.submittedAt.getTime() - b.submittedAt.getTime() || a.id.localeCompare(b.id),
    );
    const { workbook } = await workbookOf(form);
    const main = rowsOf(workbook.getWorksheet('Submissions')!).slice(2);
    expect(main.map((row) => [row[0], row[1], row[5], row[11]])).toEqual(
      ordered.map((row) => [
        row.id,
        row.submittedAt,
        row.answers.source === 'river' ? 'River or stream' : 'Protected well',
        row.answers.members.length,
      ]),
    );
    const entries = ordered.flatMap((row) =>
      // Cells after the last value are not stored.
      row.answers.members.map((member, index) => [row.id, index + 1, null, member.age]),
    );
    expect(rowsOf(workbook.getWorksheet('members')!).slice(2)).toEqual(entries);
  });

  it('writes only the headers for a form without submissions', async () => {
    const { form } = await visitForm();
    const { workbook } = await workbookOf(form);
    expect(rowsOf(workbook.getWorksheet('Submissions')!)).toHaveLength(2);
    expect(rowsOf(workbook.getWorksheet('members')!)).toHaveLength(2);
    expect(rowsOf(workbook.getWorksheet('illnesses')!)).toHaveLength(2);
  });

  it('refuses bad parameters (400), no session (401), outsiders and unassigned reporters (403), other forms (404)', async () => {
    const { form, projectId } = await visitForm();
    const url = xlsxUrl(team.org.id, form.id);
    expectViolations(
      await call(t.app, 'GET', `${url}?indicatorReportId=nope&lang=not%20a%20language`, { as: team.admin }),
      'indicatorReportId must be a UUID',
      'lang must be a BCP 47 language code such as en, ar, fa-AF or prs',
    );
    expectError(await call(t.app, 'GET', url), UNAUTHORIZED);
    expectError(await call(t.app, 'GET', url, { as: team.reporter }), notAssigned(ALL_ROLES));
    expectError(await call(t.app, 'GET', url, { as: team.outsider }), notAMember(ALL_ROLES));
    await assignProject(t.database.db, team.org.id, projectId, team.reporter.id);
    expect(
      rowsOf((await workbookOf(form, team.reporter)).workbook.getWorksheet('Submissions')!),
    ).toHaveLength(2);

    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreign = await publishedForm(t.app, team.outsider, team.outsiderOrg.id, {
      projectId: foreignProject.id,
    });
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'GET', xlsxUrl(team.org.id, id), { as: team.admin }),
        notFoundBody('Form'),
      );
    }
    const crossed = await call(t.app, 'GET', xlsxUrl(team.outsiderOrg.id, form.id), { as: team.outsider });
    expectError(crossed, notFoundBody('Form'));
    expectError(
      await call(t.app, 'GET', `${url}?indicatorReportId=${MISSING_ID}`, { as: team.admin }),
      notFoundBody('Indicator report'),
    );
  });
});
