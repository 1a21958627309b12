import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { createProject } from '../../../../test/helpers/factories.js';
import { multipart } from '../../../../test/helpers/files.js';
import { formUrl, formsUrl, publicFormUrl } from '../../../../test/helpers/forms.js';
import { call, MISSING_ID, notFoundBody, type Caller } from '../../../../test/helpers/http.js';
import { useSuite } from '../../../../test/helpers/suite.js';

const { t, team } = useSuite();

type Cell = string | number | boolean | null;
type Sheets = Record<string, Cell[][]>;

/** A workbook as a person would write it in a spreadsheet: one sheet per entry, the header row first. */
async function xlsx(sheets: Sheets): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const importUrl = (projectId: string, query = '') =>
  `/orgs/${team.org.id}/forms/import?projectId=${projectId}${query}`;

function upload(
  projectId: string,
  bytes: Buffer,
  {
    as = team.officer,
    query = '',
    fileName = 'survey.xlsx',
  }: { as?: Caller | null; query?: string; fileName?: string } = {},
) {
  return call(t.app, 'POST', importUrl(projectId, query), {
    as,
    ...multipart([
      {
        name: 'file',
        value: bytes,
        fileName,
        contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    ]),
  });
}

const project = async () => (await createProject(t.database.db, team.org.id)).id;

const SETTINGS = [
  ['form_title', 'default_language'],
  ['Household survey', 'en'],
];

/** Every supported type in one form. */
const EVERY_TYPE: Sheets = {
  survey: [
    [
      'type',
      'name',
      'label',
      'hint',
      'required',
      'relevant',
      'constraint',
      'constraint_message',
      'calculation',
      'appearance',
      'personal',
    ],
    [
      'text',
      'respondent',
      'Name of the respondent',
      'As on the ID card',
      'yes',
      null,
      null,
      null,
      null,
      null,
      'yes',
    ],
    ['text', 'comments', 'Comments', null, 'no', null, null, null, null, 'multiline', null],
    [
      'integer',
      'household_size',
      'People in the household',
      null,
      'TRUE()',
      null,
      '. > 0',
      'At least one person',
      null,
      null,
      null,
    ],
    ['decimal', 'income', 'Monthly income', null, null, null, null, null, null, null, null],
    ['select_one water', 'source', 'Main water source', null, 'true', null, null, null, null, null, null],
    [
      'select_multiple water',
      'other_sources',
      'Other sources',
      null,
      null,
      "${source} != 'river'",
      null,
      null,
      null,
      null,
      null,
    ],
    ['date', 'visit_date', 'Date of the visit', null, null, null, null, null, null, null, null],
    ['geopoint', 'position', 'Position of the house', null, null, null, null, null, null, null, null],
    ['image', 'photo', 'Photo of the water point', null, null, null, null, null, null, null, null],
    ['file', 'document', 'Any document', null, null, null, null, null, null, null, null],
    ['note', 'thanks', 'Thank you', null, null, null, null, null, null, null, null],
    [
      'calculate',
      'per_person',
      null,
      null,
      null,
      null,
      null,
      null,
      '${income} div ${household_size}',
      null,
      null,
    ],
  ],
  choices: [
    ['list_name', 'name', 'label'],
    ['water', 'borehole', 'Borehole'],
    ['water', 'river', 'River'],
    ['water', 'rain', 'Rainwater'],
  ],
  settings: SETTINGS,
};

const WATER = [
  { name: 'borehole', label: 'Borehole' },
  { name: 'river', label: 'River' },
  { name: 'rain', label: 'Rainwater' },
];

const TWO_LANGUAGES: Sheets = {
  survey: [
    [
      'type',
      'name',
      'label::English (en)',
      'label::العربية (ar)',
      'hint::English (en)',
      'hint::العربية (ar)',
    ],
    ['text', 'village', 'Village', 'القرية', 'The village you live in', 'القرية التي تسكن فيها'],
    ['integer', 'children', 'Children', 'الأطفال', 'Under 18', null],
    ['select_one yes_no', 'school', 'Do they go to school?', null, null, null],
  ],
  choices: [
    ['list_name', 'name', 'label::English (en)', 'label::العربية (ar)'],
    ['yes_no', 'yes', 'Yes', 'نعم'],
    ['yes_no', 'no', 'No', null],
  ],
  settings: [
    [
      'form_title',
      'form_title::العربية (ar)',
      'default_language',
      'form_id',
      'version',
      'description::العربية (ar)',
      'description',
    ],
    ['School survey', 'مسح المدارس', 'English (en)', 'school_2026', '1', 'عن المدارس', 'About schools'],
  ],
};

const REPEAT_IN_GROUP: Sheets = {
  survey: [
    ['type', 'name', 'label', 'min_count', 'max_count'],
    ['begin_group', 'household', 'Household', null, null],
    ['text', 'head', 'Head of household', null, null],
    ['begin_repeat', 'members', 'Members', 1, 20],
    ['text', 'member_name', 'Name', null, null],
    ['integer', 'age', 'Age', null, null],
    ['end_repeat', 'members', null, null, null],
    ['end_group', null, null, null, null],
    ['note', 'done', 'Done', null, null],
  ],
  settings: [['form_title'], ['Household roster']],
};

/** The GET body without what differs between two forms made from the same sheet. */
function comparable(form: Record<string, unknown>) {
  const { id, publicToken, publicUrl, createdAt, updatedAt, ...rest } = form;
  void [id, publicToken, publicUrl, createdAt, updatedAt];
  return rest;
}

describe('POST /orgs/:orgId/forms/import', () => {
  it('imports every supported type into an unpublished form (201), as GET shows it', async () => {
    const projectId = await project();
    const res = await upload(projectId, await xlsx(EVERY_TYPE));
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://api.test/orgs/${team.org.id}/forms/${res.body.id}`);
    const read = await call(t.app, 'GET', formUrl(team.org.id, res.body.id), { as: team.viewer });
    expect(read.body).toEqual(res.body);
    expect(res.body).toMatchObject({
      projectId,
      title: 'Household survey',
      isPublished: false,
      defaultLanguage: 'en',
      translations: {},
    });
    expect(res.body.fields).toEqual([
      {
        type: 'text',
        key: 'respondent',
        label: 'Name of the respondent',
        hint: 'As on the ID card',
        required: true,
        personal: true,
      },
      { type: 'textarea', key: 'comments', label: 'Comments' },
      {
        type: 'number',
        integer: true,
        key: 'household_size',
        label: 'People in the household',
        required: true,
        constraint: '. > 0',
        constraintMessage: 'At least one person',
      },
      { type: 'number', key: 'income', label: 'Monthly income' },
      { type: 'select', key: 'source', label: 'Main water source', required: true, choices: WATER },
      {
        type: 'multi_select',
        key: 'other_sources',
        label: 'Other sources',
        relevant: "${source} != 'river'",
        choices: WATER,
      },
      { type: 'date', key: 'visit_date', label: 'Date of the visit' },
      { type: 'location', key: 'position', label: 'Position of the house' },
      { type: 'file', key: 'photo', label: 'Photo of the water point' },
      { type: 'file', key: 'document', label: 'Any document' },
      { type: 'note', key: 'thanks', label: 'Thank you' },
      { type: 'calculate', key: 'per_person', calculation: '${income} div ${household_size}' },
    ]);
  });

  it('imports a form in English and Arabic: labels, hints and choices become translations', async () => {
    const res = await upload(await project(), await xlsx(TWO_LANGUAGES));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'School survey',
      description: 'About schools',
      defaultLanguage: 'en',
      translations: {
        ar: {
          title: 'مسح المدارس',
          description: 'عن المدارس',
          fields: {
            village: { label: 'القرية', hint: 'القرية التي تسكن فيها' },
            children: { label: 'الأطفال' },
            school: { choices: { yes: 'نعم' } },
          },
        },
      },
    });
    expect(res.body.fields).toEqual([
      { type: 'text', key: 'village', label: 'Village', hint: 'The village you live in' },
      { type: 'number', integer: true, key: 'children', label: 'Children', hint: 'Under 18' },
      {
        type: 'select',
        key: 'school',
        label: 'Do they go to school?',
        choices: [
          { name: 'yes', label: 'Yes' },
          { name: 'no', label: 'No' },
        ],
      },
    ]);
  });

  it('imports a repeat inside a group, with its counts', async () => {
    const res = await upload(await project(), await xlsx(REPEAT_IN_GROUP));
    expect(res.status).toBe(201);
    expect(res.body.fields).toEqual([
      {
        type: 'group',
        key: 'household',
        label: 'Household',
        fields: [
          { type: 'text', key: 'head', label: 'Head of household' },
          {
            type: 'repeat',
            key: 'members',
            label: 'Members',
            minCount: 1,
            maxCount: 20,
            fields: [
              { type: 'text', key: 'member_name', label: 'Name' },
              { type: 'number', integer: true, key: 'age', label: 'Age' },
            ],
          },
        ],
      },
      { type: 'note', key: 'done', label: 'Done' },
    ]);
  });

  it('answers a dry run with the form it would create (200, FormCreate) and stores nothing', async () => {
    const projectId = await project();
    const res = await upload(projectId, await xlsx(TWO_LANGUAGES), { query: '&dryRun=true' });
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).toMatchObject({ projectId, title: 'School survey', defaultLanguage: 'en' });
    expect(res.body.id).toBeUndefined();
    const list = await call(t.app, 'GET', `${formsUrl(team.org.id)}?projectId=${projectId}`, {
      as: team.admin,
    });
    expect(list.body).toEqual([]);
    // What it answers is a body the JSON route takes as it is.
    const created = await call(t.app, 'POST', formsUrl(team.org.id), { as: team.officer, body: res.body });
    expect(created.status).toBe(201);
  });

  it('refuses a broken survey with one 400 listing every problem by sheet, row and column', async () => {
    const res = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label', 'default'],
          ['text', 'village', 'Village', null],
          [null, 'orphan', 'No type here', null],
          ['range', 'score', 'Score', null],
          ['rating_stars', 'stars', 'Stars', null],
          ['select_one colours', 'colour', 'Colour', null],
          ['text', 'village', 'Village again', null],
          ['text', null, 'No name', null],
          ['integer', 'age', 'Age', 18],
        ],
        choices: [
          ['list_name', 'name', 'label'],
          ['sizes', 'small', 'Small'],
        ],
        settings: SETTINGS,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([
      'survey row 9, column default: column default is not supported',
      'survey row 3, column type: type is missing',
      'survey row 4, column type: type "range" is not supported',
      'survey row 5, column type: type "rating_stars" is unknown',
      'survey row 6, column type: choice list "colours" does not exist in the choices sheet',
      'survey row 7, column name: name "village" is used before, on row 2',
      'survey row 8, column name: name is missing',
    ]);
  });

  it('refuses an unclosed group and a mismatched end', async () => {
    const res = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label'],
          ['begin_group', 'outer', 'Outer'],
          ['begin_repeat', 'inner', 'Inner'],
          ['text', 'q', 'Q'],
          ['end_group', null, null],
        ],
        settings: SETTINGS,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([
      'survey row 5, column type: end_group does not match begin_repeat inner on row 3',
      'survey row 3, column type: begin_repeat inner is never closed (end_repeat)',
      'survey row 2, column type: begin_group outer is never closed (end_group)',
    ]);
  });

  it('refuses a workbook without a survey sheet, and places the form rules at their rows', async () => {
    const missing = await upload(
      await project(),
      await xlsx({ questions: [['type'], ['text']], settings: SETTINGS }),
    );
    expect([missing.status, missing.body.message]).toEqual([400, ['survey: the sheet is missing']]);
    const rules = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label', 'personal'],
          ['text', 'Village', 'Village', null],
          ['select_one yn', 'ok', 'OK?', 'yes'],
          ['integer', 'n', 'x'.repeat(501), null],
        ],
        choices: [
          ['list_name', 'name', 'label'],
          ['yn', 'yes', 'Yes'],
          ['yn', 'no', null],
        ],
        settings: SETTINGS,
      }),
    );
    expect(rules.status).toBe(400);
    expect(rules.body.message).toEqual(['choices row 3, column label: label is missing']);
    const schema = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label', 'hint'],
          ['text', 'Village', 'Village', null],
          ['integer', 'n', 'x'.repeat(501), 'two\nlines'],
        ],
        settings: SETTINGS,
      }),
    );
    expect([schema.status, schema.body.message]).toEqual([
      400,
      [
        'survey row 2, column name: must be 1 to 64 lower-case letters, digits or underscores, starting with a letter',
        'survey row 3, column label: must be at most 500 characters',
        expect.stringMatching(/^survey row 3, column hint: must not contain control characters/),
      ],
    ]);
    const rule = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label', 'personal'],
          ['select_one yn', 'ok', 'OK?', 'yes'],
        ],
        choices: [
          ['list_name', 'name', 'label'],
          ['yn', 'yes', 'Yes'],
        ],
        settings: SETTINGS,
      }),
    );
    expect([rule.status, rule.body.message]).toEqual([
      400,
      [expect.stringMatching(/^survey row 2, column personal: is allowed only on /)],
    ]);
  });

  it('refuses a file over 10 MiB (413)', async () => {
    const res = await upload(await project(), Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
  });

  it('refuses a file that is not an .xlsx, and an empty one (415)', async () => {
    const projectId = await project();
    const text = await upload(projectId, Buffer.from('type,name,label\ntext,a,A\n'), {
      fileName: 'survey.csv',
    });
    expect([text.status, text.body.code]).toEqual([415, 'unsupported_media_type']);
    const empty = await upload(projectId, Buffer.alloc(0));
    expect([empty.status, empty.body.code]).toEqual([415, 'unsupported_media_type']);
    const none = await call(t.app, 'POST', importUrl(projectId), { as: team.officer, body: {} });
    expect(none.status).toBe(415);
  });

  it('refuses an .xlsx bomb (a sheet inflating far past the limit) with 413, reading no more of it', async () => {
    const zip = await JSZip.loadAsync(await xlsx(EVERY_TYPE));
    const row = '<row><c t="inlineStr"><is><t>text</t></is></c></row>';
    const huge = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${row.repeat(400_000)}</sheetData></worksheet>`;
    zip.file('xl/worksheets/sheet1.xml', huge);
    const bomb = await zip.generateAsync({
      type: 'nodebuffer',
      compression: 'DEFLATE',
      compressionOptions: { level: 9 },
    });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await upload(await project(), bomb);
    expect([res.status, res.body.code]).toEqual([413, 'payload_too_large']);
    expect(res.body.message).toMatch(/inflates to more than 16 MiB/);
    // Small when inflated, but rows enough to cost exceljs hundreds of megabytes: refused before it reads them.
    zip.file('xl/worksheets/sheet1.xml', huge.replace(row.repeat(400_000), row.repeat(13_000)));
    const rows = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
    const many = await upload(await project(), rows);
    expect([many.status, many.body.message]).toEqual([413, 'file: the sheets hold more than 12000 rows']);
  });

  it('refuses a relevant that does not parse (the expression engine)', async () => {
    const res = await upload(
      await project(),
      await xlsx({
        survey: [
          ['type', 'name', 'label', 'relevant'],
          ['integer', 'age', 'Age', null],
          ['text', 'school', 'School', '${age} >> ('],
        ],
        settings: SETTINGS,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual([expect.stringMatching(/^survey row 3, column relevant: /)]);
  });

  it('checks the caller: 401, 403 for viewers and reporters and strangers, 404 for a project elsewhere', async () => {
    const projectId = await project();
    const bytes = await xlsx(REPEAT_IN_GROUP);
    expect((await upload(projectId, bytes, { as: null })).status).toBe(401);
    for (const as of [team.viewer, team.reporter, team.outsider]) {
      expect((await upload(projectId, bytes, { as })).status).toBe(403);
    }
    const theirs = await createProject(t.database.db, team.outsiderOrg.id);
    const res = await upload(theirs.id, bytes, { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Project')]);
    expect((await upload(MISSING_ID, bytes, { as: team.admin })).status).toBe(404);
  });
});

describe('GET /orgs/:orgId/forms/:id/xlsform', () => {
  it('exports a form that imports back as the same form (round trip)', async () => {
    for (const sheets of [EVERY_TYPE, TWO_LANGUAGES, REPEAT_IN_GROUP]) {
      const first = await upload(await project(), await xlsx(sheets));
      expect(first.status).toBe(201);
      const exported = await call(t.app, 'GET', `${formUrl(team.org.id, first.body.id)}/xlsform`, {
        as: team.viewer,
      });
      expect(exported.status).toBe(200);
      expect(exported.headers['content-type']).toBe(
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      );
      expect(exported.headers['content-disposition']).toBe(`attachment; filename="${first.body.title}.xlsx"`);
      const again = await upload(first.body.projectId, exported.response.rawPayload);
      expect(again.status).toBe(201);
      const [a, b] = await Promise.all(
        [first.body.id, again.body.id].map((id) =>
          call(t.app, 'GET', formUrl(team.org.id, id), { as: team.admin }),
        ),
      );
      expect(comparable(b!.body)).toEqual(comparable(a!.body));
    }
  });

  it('writes showIf as relevant and boolean as select_one mel_boolean, and names the file safely', async () => {
    const created = await call(t.app, 'POST', formsUrl(team.org.id), {
      as: team.officer,
      body: {
        projectId: await project(),
        title: 'Ward “North” / 2026',
        fields: [
          { type: 'boolean', key: 'has_water', label: 'Has water?' },
          { type: 'multi_select', key: 'uses', label: 'Uses', options: ['Drinking', 'Cooking'] },
          { type: 'text', key: 'why', label: 'Why not?', showIf: { field: 'has_water', equals: false } },
          { type: 'text', key: 'cook', label: 'Cook what?', showIf: { field: 'uses', equals: 'Cooking' } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const exported = await call(t.app, 'GET', `${formUrl(team.org.id, created.body.id)}/xlsform`, {
      as: team.admin,
    });
    expect(exported.headers['content-disposition']).toBe(
      'attachment; filename="Ward _North_ _ 2026.xlsx"; ' +
        "filename*=UTF-8''Ward%20%E2%80%9CNorth%E2%80%9D%20_%202026.xlsx",
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.response.rawPayload as unknown as ArrayBuffer);
    const survey = workbook.getWorksheet('survey')!;
    const header = (survey.getRow(1).values as Cell[]).slice(1);
    const rows = [2, 3, 4, 5].map((n) => {
      const values = survey.getRow(n).values as Cell[];
      return Object.fromEntries(header.map((h, i) => [h, values[i + 1] ?? null]));
    });
    expect(rows.map((r) => [r.type, r.relevant])).toEqual([
      ['select_one mel_boolean', null],
      ['select_multiple uses', null],
      ['text', "${has_water} = 'false'"],
      ['text', "selected(${uses}, 'Cooking')"],
    ]);
    const again = await upload(created.body.projectId, exported.response.rawPayload);
    expect(again.status).toBe(201);
    expect(again.body.fields[0]).toEqual({ type: 'boolean', key: 'has_water', label: 'Has water?' });
  });

  it('answers 404 for a form of another organization, 401 without a token', async () => {
    const theirs = await upload(await project(), await xlsx(REPEAT_IN_GROUP));
    const url = `/orgs/${team.outsiderOrg.id}/forms/${theirs.body.id}/xlsform`;
    const res = await call(t.app, 'GET', url, { as: team.outsider });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Form')]);
    expect((await call(t.app, 'GET', `${formUrl(team.org.id, theirs.body.id)}/xlsform`)).status).toBe(401);
    expect(
      (await call(t.app, 'GET', `${formUrl(team.org.id, theirs.body.id)}/xlsform`, { as: team.outsider }))
        .status,
    ).toBe(403);
  });
});

describe('GET /forms/public/:token?lang=', () => {
  it('answers in Arabic, string by string falling back to English, and lists the languages', async () => {
    const res = await upload(await project(), await xlsx(TWO_LANGUAGES));
    const published = await call(t.app, 'POST', formUrl(team.org.id, res.body.id, 'publish'), {
      as: team.officer,
    });
    expect(published.status).toBe(200);
    const token = res.body.publicToken as string;
    const languages = [
      { code: 'en', name: 'English' },
      { code: 'ar', name: 'العربية' },
    ];
    for (const lang of ['ar', 'AR', 'ar-EG']) {
      const arabic = await call(t.app, 'GET', `${publicFormUrl(token)}?lang=${lang}`);
      expect(arabic.body).toEqual({
        title: 'مسح المدارس',
        description: 'عن المدارس',
        closesAt: null,
        language: 'ar',
        languages,
        fields: [
          { type: 'text', key: 'village', label: 'القرية', hint: 'القرية التي تسكن فيها' },
          { type: 'number', integer: true, key: 'children', label: 'الأطفال', hint: 'Under 18' },
          {
            type: 'select',
            key: 'school',
            label: 'Do they go to school?',
            choices: [
              { name: 'yes', label: 'نعم' },
              { name: 'no', label: 'No' },
            ],
          },
        ],
      });
    }
    for (const lang of ['', '?lang=fr', '?lang=en-GB']) {
      const english = await call(t.app, 'GET', `${publicFormUrl(token)}${lang}`);
      expect(english.body).toMatchObject({ title: 'School survey', language: 'en', languages });
      expect(english.body.fields[0].label).toBe('Village');
    }
  });
});
