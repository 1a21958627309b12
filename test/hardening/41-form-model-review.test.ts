import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../src/storage/file-storage.js';
import { createProject } from '../helpers/factories.js';
import { multipart } from '../helpers/files.js';
import { formsUrl, publishedForm, submissionsUrl, submitUrl } from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { useSuite } from '../helpers/suite.js';

// Issue 41's attacker review: each finding, reproduced on the change as it was, kept fixed here.

const { t, team } = useSuite();

async function form(fields: unknown[], body: Record<string, unknown> = {}) {
  const project = await createProject(t.database.db, team.org.id);
  return publishedForm(t.app, team.officer, team.org.id, {
    title: 'Review',
    projectId: project.id,
    fields,
    ...body,
  });
}
const submit = (token: string, answers: unknown) =>
  call(t.app, 'POST', submitUrl(token), { body: { answers } });

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
async function importXls(bytes: Buffer) {
  const project = await createProject(t.database.db, team.org.id);
  return call(t.app, 'POST', `/orgs/${team.org.id}/forms/import?projectId=${project.id}`, {
    as: team.officer,
    ...multipart([{ name: 'file', value: bytes, fileName: 's.xlsx', contentType: XLSX }]),
  });
}
async function workbook(edit?: (book: ExcelJS.Workbook) => void): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const survey = book.addWorksheet('survey');
  survey.addRow(['type', 'name', 'label']);
  survey.addRow(['text', 'name', 'Name']);
  book.addWorksheet('settings').addRow(['form_title']);
  edit?.(book);
  return Buffer.from(await book.xlsx.writeBuffer());
}
/** The workbook with the survey's rows replaced by `rows`, written at `path` (a further part elsewhere). */
async function withSheetData(rows: string, path = 'xl/worksheets/sheet1.xml'): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await workbook());
  const original = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
  zip.file(path, original.replace(/<sheetData>[\s\S]*<\/sheetData>/, `<sheetData>${rows}</sheetData>`));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('issue 41 review', () => {
  it('a field keyed constructor is answered like any other (its answer is not read from Object)', async () => {
    const f = await form([
      { type: 'text', label: 'Name', key: 'name' },
      { type: 'note', label: 'Thanks', key: 'constructor' },
      { type: 'repeat', label: 'R', key: 'r', fields: [{ type: 'text', label: 'C', key: 'valueof' }] },
    ]);
    expect((await submit(f.publicToken, { name: 'A', r: [{}] })).status).toBe(201);
    const g = await form([
      { type: 'repeat', label: 'R', key: 'r', fields: [{ type: 'text', label: 'C', key: 'constructor' }] },
    ]);
    const res = await submit(g.publicToken, { r: [{}] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it('bounds the repeat entries of a submission in all, at every depth (nested repeats cost 45 s)', async () => {
    const f = await form([
      { type: 'repeat', label: 'Others', key: 'others', fields: [{ type: 'number', label: 'X', key: 'x' }] },
      {
        type: 'repeat',
        label: 'Outer',
        key: 'outer',
        fields: [
          {
            type: 'repeat',
            label: 'Inner',
            key: 'inner',
            fields: [{ type: 'calculate', key: 's', calculation: 'sum(${x})' }],
          },
        ],
      },
    ]);
    const others = Array.from({ length: 500 }, () => ({ x: 1 }));
    const tooMany = {
      others,
      outer: Array.from({ length: 4 }, () => ({ inner: Array.from({ length: 400 }, () => ({})) })),
    };
    const refused = await submit(f.publicToken, tooMany);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(
      'answers must hold at most 2000 repeat entries in all, at every depth',
    );
    // Within the bound: every inner entry reads the sibling repeat, gathered once.
    const kept = {
      others,
      outer: Array.from({ length: 3 }, () => ({ inner: Array.from({ length: 400 }, () => ({})) })),
    };
    const res = await submit(f.publicToken, kept);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    const list = await call(t.app, 'GET', submissionsUrl(team.org.id, f.id), { as: team.admin });
    expect(list.body[0].answers.outer[2].inner[399]).toEqual({ s: 500 });
  });

  it('refuses a calculate reading a personal answer unless it is personal itself, and hides it then', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const fields = (personal: boolean) => [
      {
        type: 'repeat',
        label: 'Members',
        key: 'members',
        fields: [
          { type: 'text', label: 'Phone', key: 'phone', personal: true },
          { type: 'calculate', key: 'contact', calculation: "concat('tel:', ${phone})", personal },
        ],
      },
    ];
    const refused = await call(t.app, 'POST', formsUrl(team.org.id), {
      as: team.officer,
      body: { title: 'Leak', projectId: project.id, fields: fields(false) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toEqual([
      'fields.0.fields.1.personal must be true: its calculation reads the personal phone',
    ]);
    const f = await form(fields(true));
    expect((await submit(f.publicToken, { members: [{ phone: '+254700000001' }] })).status).toBe(201);
    const seen = await call(t.app, 'GET', submissionsUrl(team.org.id, f.id), { as: team.viewer });
    expect(seen.body[0].answers.members[0]).toEqual({ phone: null, contact: null });
    const admin = await call(t.app, 'GET', submissionsUrl(team.org.id, f.id), { as: team.admin });
    expect(admin.body[0].answers.members[0]).toEqual({
      phone: '+254700000001',
      contact: 'tel:+254700000001',
    });
  });

  it('takes choice labels from a translation own keys only (constructor, __proto__)', async () => {
    const f = await form(
      [
        {
          type: 'select',
          label: 'Pick',
          key: 'pick',
          choices: [
            { name: 'yes', label: 'Yes' },
            { name: 'constructor', label: 'Builder' },
          ],
        },
      ],
      { translations: { fr: { fields: { pick: { choices: { yes: 'Oui' } } } } } },
    );
    const res = await call(t.app, 'GET', `/forms/public/${f.publicToken}?lang=fr`);
    expect(res.status).toBe(200);
    expect(res.body.fields[0].choices).toEqual([
      { name: 'yes', label: 'Oui' },
      { name: 'constructor', label: 'Builder' },
    ]);
  });

  it('names an export whose title puts an emoji across character 255 (no 500)', async () => {
    expect(contentDisposition(`${'a'.repeat(254)}\u{1F600}.xlsx`)).toMatch(
      /^attachment; filename="a+_+"; filename\*=UTF-8''a+%F0%9F%98%80$/,
    );
    const f = await form([{ type: 'text', label: 'Name', key: 'name' }], {
      title: `${'a'.repeat(254)}\u{1F600}`,
    });
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/forms/${f.id}/xlsform`, { as: team.viewer });
    expect(res.status).toBe(200);
  });

  it('reads a number too large for a date, formatted as one, without a 500', async () => {
    const res = await importXls(
      await workbook((book) => {
        const cell = book.getWorksheet('survey')!.getCell('C2');
        cell.value = 1e20;
        cell.numFmt = 'yyyy-mm-dd';
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message.join(' ')).toContain('survey row 2');
  });

  it('counts cells however their tags are spaced, and worksheets in any folder (413)', async () => {
    const cells = (n: number) =>
      Array.from({ length: 16 }, (_, i) => `<c\nr="${String.fromCharCode(65 + i)}${n}"><v>1</v></c>`).join(
        '',
      );
    const spaced = Array.from({ length: 9_500 }, (_, i) => `<row r="${i + 1}">${cells(i + 1)}</row>`).join(
      '',
    );
    const a = await importXls(await withSheetData(spaced));
    expect(a.status).toBe(413);
    expect(a.body.message).toContain('cells');
    const elsewhere = Array.from(
      { length: 12_500 },
      (_, i) => `<row r="${i + 2}"><c r="A${i + 2}"><v>1</v></c></row>`,
    ).join('');
    const b = await importXls(await withSheetData(elsewhere, 'x/xl/worksheets/sheet1.xml'));
    expect(b.status).toBe(413);
    expect(b.body.message).toContain('rows');
  });
});
