import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { uniqueEmail, type Team } from '../helpers/factories.js';
import { answers, publishedForm, submitUrl, SURVEY_FIELDS } from '../helpers/forms.js';
import { call, expectViolations } from '../helpers/http.js';
import {
  BODIES,
  orgRoutes,
  pathFor,
  routeName,
  teamWithResources,
  type Ids,
} from '../helpers/route-calls.js';

let t: TestApp;
let team: Team;
let ids: Ids;

beforeAll(async () => {
  t = await buildTestApp();
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Nul'));
});
afterAll(() => t.close());

const NUL = 'a\u0000b';
const nulMessage = (field: string) => `${field} must not contain NUL characters`;

/** Each top-level string field of a valid body, with NUL put into it: one body per field. */
function withNul(body: Record<string, unknown>): [string, Record<string, unknown>][] {
  return Object.entries(body)
    .filter(([, value]) => typeof value === 'string')
    .map(([field]) => [field, { ...body, [field]: NUL }]);
}

describe('finding 4: text with a NUL character is refused with a 400', () => {
  it('on the routes that answered 500', async () => {
    const org = team.org.id;
    const cases: [string, string, string, Record<string, unknown>, string][] = [
      [
        'POST',
        '/auth/register',
        '',
        { email: uniqueEmail(), password: 'long enough password', firstName: NUL, lastName: 'B' },
        'firstName',
      ],
      ['POST', `/orgs/${org}/donors`, 'admin', { name: NUL, code: 'NUL1', type: 'bilateral' }, 'name'],
      [
        'POST',
        `/orgs/${org}/indicators/${ids.indicator}/disaggregations`,
        'officer',
        { name: 'Age', categories: ['young', NUL] },
        'categories.1',
      ],
      [
        'PATCH',
        `/orgs/${org}/budget-lines/${ids.budgetLine}`,
        'officer',
        { description: NUL },
        'description',
      ],
      ['PATCH', `/orgs/${org}/participants/${ids.participant}`, 'officer', { firstName: NUL }, 'firstName'],
    ];
    for (const [method, url, as, body, field] of cases) {
      const res = await call(t.app, method as 'POST', url, {
        as: as === 'admin' ? team.admin : as === 'officer' ? team.officer : null,
        body,
      });
      expect([method, url, res.status]).toEqual([method, url, 400]);
      expectViolations(res, nulMessage(field));
    }
  });

  it('in every string field of every /orgs route that takes a body', async () => {
    const failures: string[] = [];
    for (const route of orgRoutes(t.app)) {
      const make = BODIES[routeName(route)];
      const body = make?.(ids);
      if (!body || typeof body !== 'object') continue;
      for (const [field, bad] of withNul(body as Record<string, unknown>)) {
        const res = await call(t.app, route.method as 'POST', pathFor(route, team.org.id, ids), {
          as: team.admin,
          body: bad,
        });
        const messages: unknown = res.body?.message;
        if (res.status !== 400 || !Array.isArray(messages) || !messages.includes(nulMessage(field))) {
          failures.push(`${routeName(route)} ${field}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('in query values', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}/participants?search=a%00b`, {
      as: team.admin,
    });
    expectViolations(res, nulMessage('search'));
  });

  it('in form answers, and lone surrogates too', async () => {
    const form = await publishedForm(t.app, team.admin, team.org.id, { projectId: ids.project });
    expect(SURVEY_FIELDS.some((field) => field.key === 'name')).toBe(true);
    const nul = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: answers({ name: NUL }) },
    });
    expectViolations(nul, nulMessage('answers.name'));
    const surrogate = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: '{"answers":{"name":"a\\ud800b","household_size":5,"source":"well","consent":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expectViolations(surrogate, 'answers.name must be valid Unicode text');
  });

  it('in the keys of a free-form object (disaggregated values), NUL and lone surrogates alike', async () => {
    const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${ids.project}/indicator-reports`, {
      as: team.admin,
      body: `{"indicatorId":"${ids.indicator}","reportingPeriodId":"${ids.period}","disaggregatedValues":{"a\\u0000":1,"\\ud800":2}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectViolations(
      res,
      'disaggregatedValues keys must not contain NUL characters',
      'disaggregatedValues keys must be valid Unicode text',
    );
  });

  it('lone surrogates in API text are refused too, not stored mangled', async () => {
    const res = await call(t.app, 'POST', `/orgs/${team.org.id}/donors`, {
      as: team.admin,
      body: '{"name":"Donor \\udc00","code":"SUR1","type":"bilateral"}',
      headers: { 'content-type': 'application/json' },
    });
    expectViolations(res, 'name must be valid Unicode text');
  });
});
