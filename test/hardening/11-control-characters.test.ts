import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { uniqueCode, uniqueEmail, type Team } from '../helpers/factories.js';
import { multipart, PDF } from '../helpers/files.js';
import { answers, publishedForm, submitUrl, SURVEY_FIELDS } from '../helpers/forms.js';
import { badRequestAt, call, expectError, type Call } from '../helpers/http.js';
import {
  BODIES,
  orgRoutes,
  pathFor,
  routeName,
  teamWithResources,
  type Ids,
} from '../helpers/route-calls.js';

/**
 * Finding 11: text that is one line (names, codes, titles, labels, categories, units, keys) refuses every
 * control character (Unicode category Cc); text of several lines (descriptions, narratives, comments,
 * answers) keeps tabs and line breaks and refuses the others. A 400 names the field and the rule.
 */
let t: TestApp;
let team: Team;
let ids: Ids;

beforeAll(async () => {
  t = await buildTestApp();
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Controls'));
});
afterAll(() => t.close());

/** The patterns the document publishes (Unicode category Cc is U+0000-U+001F and U+007F-U+009F). */
const CC = '\\u0000-\\u001F\\u007F-\\u009F';
const CC_BUT_LINES = '\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F';
const SINGLE_LINE_PATTERNS = {
  any: `^[^${CC}]*$`,
  notBlank: `^[^\\S${CC}]*[^\\s${CC}][^${CC}]*$`,
};
const MULTI_LINE_PATTERNS = {
  any: `^[^${CC_BUT_LINES}]*$`,
  notBlank: `^[^\\S${CC_BUT_LINES}]*[^\\s${CC}][^${CC_BUT_LINES}]*$`,
};

const oneLine = (field: string) =>
  `${field} must not contain control characters (line breaks, tabs or other invisible characters)`;
const lines = (field: string) =>
  `${field} must not contain control characters other than tabs and line breaks`;

/** The 400 of one field's control characters: the contract's body, the field's path and the rule. */
function expectRefused(res: Call, path: string, rule: 'singleLine' | 'noControlCharacters'): void {
  const field = path.slice(1).replaceAll('/', '.');
  expectError(res, badRequestAt(['body', path, rule, rule === 'singleLine' ? oneLine(field) : lines(field)]));
}

describe('finding 11: control characters in text', () => {
  it('a name with a line break, a bell or an escape is refused where it is written', async () => {
    const org = team.org.id;
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/orgs', { name: 'Legit Org\r\nBcc: victim@example.org', code: uniqueCode() }, '/name'],
      ['PATCH', `/orgs/${org}`, { name: 'Ring \u0007 ring' }, '/name'],
      [
        'POST',
        `/orgs/${org}/programs`,
        { name: 'Water\u001b[31m', startDate: '2026-01-01', endDate: '2026-12-31' },
        '/name',
      ],
      [
        'POST',
        `/orgs/${org}/programs/${ids.program}/projects`,
        { name: 'Wells', code: 'W\n1', currency: 'USD', startDate: '2026-01-01', endDate: '2026-12-31' },
        '/code',
      ],
      ['PATCH', `/orgs/${org}/projects/${ids.project}`, { name: 'Two\nlines' }, '/name'],
      ['PATCH', `/orgs/${org}/projects/${ids.project}`, { location: 'North\r\nSouth' }, '/location'],
      [
        'POST',
        `/orgs/${org}/indicators`,
        { name: 'Girls\tenrolled', code: 'GIRLS_T', unit: 'girls', aggregationMethod: 'sum' },
        '/name',
      ],
      ['PATCH', `/orgs/${org}/indicators/${ids.indicator}`, { unit: 'kg\u0085' }, '/unit'],
      ['PATCH', `/orgs/${org}/indicators/${ids.indicator}`, { formula: 'A\n+ B' }, '/formula'],
      // A formula decides which fields a new indicator needs: its line break is named, not taken for no formula.
      [
        'POST',
        `/orgs/${org}/indicators`,
        { name: 'Ratio', code: 'RATIO_T', unit: '%', formula: 'A\r\n/ B' },
        '/formula',
      ],
      [
        'POST',
        `/orgs/${org}/indicators/${ids.indicator}/disaggregations`,
        { name: 'Age', categories: ['young', 'old\n'] },
        '/categories/1',
      ],
      [
        'POST',
        `/orgs/${org}/forms`,
        {
          projectId: ids.project,
          title: 'Survey',
          fields: [{ type: 'text', label: 'Name\r\n', key: 'name' }],
        },
        '/fields/0/label',
      ],
      [
        'POST',
        `/orgs/${org}/forms`,
        {
          projectId: ids.project,
          title: 'Survey',
          fields: [{ type: 'select', label: 'Pick', key: 'p', options: ['a', 'b\u001b'] }],
        },
        '/fields/0/options/1',
      ],
      ['PATCH', `/orgs/${org}/forms/${ids.form}`, { title: 'Survey\u0007' }, '/title'],
      [
        'POST',
        `/orgs/${org}/projects/${ids.project}/reports`,
        { title: 'Q1\r\nreport', startDate: '2026-01-01', endDate: '2026-03-31' },
        '/title',
      ],
      ['PATCH', `/orgs/${org}/reports/${ids.report}`, { title: 'Q1\u001b' }, '/title'],
      [
        'POST',
        `/orgs/${org}/projects/${ids.project}/budget-lines`,
        { category: 'Travel\n', plannedAmount: 1 },
        '/category',
      ],
      ['PATCH', `/orgs/${org}/reporting-periods/${ids.period}`, { label: 'Q1\t2026' }, '/label'],
      [
        'PATCH',
        `/orgs/${org}/webhooks/${ids.webhook}`,
        { description: 'Our CRM\r\nX-Injected: 1' },
        '/description',
      ],
      ['POST', `/orgs/${org}/donors`, { name: 'Fund', code: 'F\u00071', type: 'bilateral' }, '/code'],
      ['PATCH', `/orgs/${org}/donors/${ids.donor}`, { contactName: 'Ann\nBee' }, '/contactName'],
      ['PATCH', `/orgs/${org}/activities/${ids.activity}`, { facilitator: 'Ann\u0007' }, '/facilitator'],
      ['PATCH', `/orgs/${org}/participants/${ids.participant}`, { village: 'Kisumu\r' }, '/village'],
      ['PATCH', `/orgs/${org}/result-nodes/${ids.resultNode}`, { title: 'Impact\u009b' }, '/title'],
      [
        'POST',
        '/auth/register',
        { email: uniqueEmail(), password: 'long enough password', firstName: 'Ada\n', lastName: 'L' },
        '/firstName',
      ],
    ];
    for (const [method, url, body, path] of cases) {
      const res = await call(t.app, method as 'POST', url, {
        as: url.startsWith('/auth') ? null : team.admin,
        body,
      });
      expect([method, url, path, res.status]).toEqual([method, url, path, 400]);
      expectRefused(res, path, 'singleLine');
    }
  });

  it('multi-line text keeps its tabs and line breaks and refuses the other control characters', async () => {
    const org = team.org.id;
    const text = 'First line\r\n\tindented\nlast';
    const created = await call(t.app, 'POST', `/orgs/${org}/programs`, {
      as: team.admin,
      body: { name: 'Lines kept', description: text, startDate: '2026-01-01', endDate: '2026-12-31' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const read = await call(t.app, 'GET', `/orgs/${org}/programs/${created.body.id}`, { as: team.admin });
    expect(read.body.description).toBe(text);

    const narrative = await call(t.app, 'PATCH', `/orgs/${org}/indicator-reports/${ids.indicatorReport}`, {
      as: team.admin,
      body: { narrative: 'Reached:\n\t- girls\n\t- boys' },
    });
    expect(narrative.status, JSON.stringify(narrative.body)).toBe(200);
    expect(narrative.body.narrative).toBe('Reached:\n\t- girls\n\t- boys');

    const cases: [string, string, Record<string, unknown>, string][] = [
      ['PATCH', `/orgs/${org}/programs/${created.body.id}`, { description: 'Ding\u0007' }, '/description'],
      [
        'PATCH',
        `/orgs/${org}/indicator-reports/${ids.indicatorReport}`,
        { narrative: 'a\u001bb' },
        '/narrative',
      ],
      [
        'PATCH',
        `/orgs/${org}/reports/${ids.report}`,
        { sections: { executiveSummary: 'Next\u0085line' } },
        '/sections/executiveSummary',
      ],
      ['PATCH', `/orgs/${org}/donors/${ids.donor}`, { notes: 'Form\u000cfeed' }, '/notes'],
      [
        'PATCH',
        `/orgs/${org}/budget-lines/${ids.budgetLine}`,
        { description: 'Vertical\u000btab' },
        '/description',
      ],
    ];
    for (const [method, url, body, path] of cases) {
      const res = await call(t.app, method as 'PATCH', url, { as: team.admin, body });
      expect([url, path, res.status]).toEqual([url, path, 400]);
      expectRefused(res, path, 'noControlCharacters');
    }
  });

  it('an attachment title sent as a multipart field is one line', async () => {
    const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${ids.project}/attachments`, {
      as: team.admin,
      ...multipart([
        { name: 'file', value: PDF, fileName: 'a.pdf', contentType: 'application/pdf' },
        { name: 'title', value: 'Budget\u0007 2026' },
      ]),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', message: [oneLine('title')] });
    expect(res.body.details).toEqual([
      expect.objectContaining({ rule: 'invalid', message: oneLine('title') }),
    ]);
  });

  it('a query value is one line', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/participants?search=a%0Ab`, {
      as: team.admin,
    });
    expectError(res, badRequestAt(['query', '/search', 'singleLine', oneLine('search')]));
  });

  it("a respondent's text answers keep tabs and line breaks and refuse the other control characters", async () => {
    expect(SURVEY_FIELDS.find((field) => field.key === 'name')?.type).toBe('text');
    const form = await publishedForm(t.app, team.admin, team.org.id, { projectId: ids.project });
    const kept = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: answers({ name: 'Achieng\n\tOtieno' }) },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(201);
    const refused = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: answers({ name: 'Achieng\u001b[2J' }) },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'validation_failed', message: [lines('answers.name')] });
    expect(refused.body.details).toEqual([expect.objectContaining({ path: '/answers/name' })]);
  });

  it('in every string field of every /orgs route that takes a body, a bell is refused, named by a rule', async () => {
    const failures: string[] = [];
    for (const route of orgRoutes(t.app)) {
      const body = BODIES[routeName(route)]?.(ids) as Record<string, unknown> | undefined;
      if (!body) continue;
      for (const [field, value] of Object.entries(body)) {
        if (typeof value !== 'string') continue;
        const res = await call(t.app, route.method as 'POST', pathFor(route, team.org.id, ids), {
          as: team.admin,
          body: { ...body, [field]: `${value}\u0007` },
        });
        // Text with a format or a fixed set of values (a date, an id, a role) is refused by that rule.
        const details = (res.body?.details ?? []) as { path: string; rule: string; message: string }[];
        const named = details.some(
          ({ path, rule, message }) =>
            path === `/${field}` &&
            (['format', 'enum'].includes(rule) || message === oneLine(field) || message === lines(field)),
        );
        if (res.status !== 400 || !named)
          failures.push(`${routeName(route)} ${field}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('finding 11: the OpenAPI document says which text is one line', () => {
  type Json = Record<string, any>;
  let doc: Json;
  beforeAll(async () => {
    doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
  });
  const resolve = (node: Json): Json =>
    typeof node?.$ref === 'string'
      ? resolve(
          node.$ref
            .slice(2)
            .split('/')
            .reduce((at: Json, key: string) => at[key], doc),
        )
      : node;

  it('every text a request body carries has a pattern, a format or a fixed set of values', () => {
    const unruled: string[] = [];
    const visit = (raw: Json, where: string): void => {
      const node = resolve(raw);
      if (typeof node !== 'object' || node === null) return;
      const types = [node.type].flat();
      const ruled = node.pattern && node.pattern !== '\\S';
      if (types.includes('string') && !ruled && !node.format && !node.enum && node.const === undefined) {
        unruled.push(where);
      }
      for (const [key, sub] of Object.entries(node.properties ?? {})) visit(sub as Json, `${where}/${key}`);
      for (const key of ['items', 'additionalProperties', 'then', 'else']) {
        if (typeof node[key] === 'object') visit(node[key], `${where}/${key}`);
      }
      for (const key of ['anyOf', 'oneOf', 'allOf']) {
        (node[key] ?? []).forEach((sub: Json, i: number) => visit(sub, `${where}/${key}/${i}`));
      }
    };
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const json = (op as Json).requestBody?.content?.['application/json']?.schema;
        if (json) visit(json, `${method.toUpperCase()} ${path}`);
      }
    }
    expect(unruled).toEqual([]);
  });

  it('publishes patterns that accept and refuse what validation does', () => {
    const schemas = doc.components.schemas;
    expect(schemas.OrganizationCreate.properties.name.pattern).toBe(SINGLE_LINE_PATTERNS.notBlank);
    expect(schemas.WebhookEndpointUpdate.properties.description.pattern).toBe(SINGLE_LINE_PATTERNS.any);
    expect(schemas.ProgramCreate.properties.description.anyOf[0].pattern).toBe(MULTI_LINE_PATTERNS.any);
    expect(schemas.IndicatorReportRejection.properties.comment.pattern).toBe(MULTI_LINE_PATTERNS.notBlank);
    // Ajv compiles patterns with the `u` flag; so would a client's validator.
    const matches = (pattern: string, text: string) => new RegExp(pattern, 'u').test(text);
    for (const [text, one, several] of [
      ['Hope Relief', true, true],
      ['Ünïcödé ✓ 水', true, true],
      ['a\tb', false, true],
      ['a\r\nb', false, true],
      ['a\u0007b', false, false],
      ['a\u001bb', false, false],
      ['a\u0085b', false, false],
      ['a\u0000b', false, false],
      ['a\u2028b', true, true],
    ] as const) {
      expect([text, matches(SINGLE_LINE_PATTERNS.any, text), matches(MULTI_LINE_PATTERNS.any, text)]).toEqual(
        [text, one, several],
      );
      expect([text, matches(SINGLE_LINE_PATTERNS.notBlank, text)]).toEqual([text, one]);
    }
    expect(matches(SINGLE_LINE_PATTERNS.notBlank, ' \u00a0 ')).toBe(false);
    expect(matches(MULTI_LINE_PATTERNS.notBlank, ' \n\t ')).toBe(false);
    expect(matches(MULTI_LINE_PATTERNS.notBlank, ' \n\tx ')).toBe(true);
    expect(matches(SINGLE_LINE_PATTERNS.any, '')).toBe(true);
  });
});
