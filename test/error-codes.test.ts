/**
 * Issue 23: every error body carries a stable `code` from ERROR_CODES, a 400 carries `details` in the
 * order of `message`, and every 401 carries a `WWW-Authenticate: Bearer` challenge. One test per error the
 * contract lists (DECISIONS.md section 2, SPEC.md "Refusals").
 */
import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOfStatus, ERROR_CODES, type ErrorCode } from '../src/errors/codes.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { uniqueDonorCode } from './helpers/donors.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { formTargets, publicFormUrl, publishedForm } from './helpers/forms.js';
import {
  ADMINS,
  ALL_ROLES,
  call,
  MISSING_ID,
  notAMember,
  notFoundBody,
  roleRefused,
  UNAUTHORIZED,
  type Call,
} from './helpers/http.js';
import { postIndicator } from './helpers/indicators.js';
import { createPeriod } from './helpers/periods.js';
import { postProgram, postProject, programsUrl } from './helpers/programs.js';

let t: TestApp;
let team: Team;
let other: Team;
/** Every code an answer of this file carried: all of them must be in ERROR_CODES. */
const seen = new Set<string>();

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  other = await createTeam(t.app, t.database.db);
  // A write the service cannot foresee failing, as a bug would: its answer is the 500 (see finding 10).
  await t.database.db.execute(
    sql.raw(`ALTER TABLE donors ADD CONSTRAINT error_codes_refused CHECK (name <> 'Refused donor')`),
  );
});
afterAll(() => t.close());

/** The answer, its code noted. */
async function answer(...args: Parameters<typeof call>): Promise<Call> {
  const res = await call(...args);
  if (res.body && typeof res.body === 'object' && 'code' in res.body) seen.add(String(res.body.code));
  return res;
}

const orgUrl = (path: string, orgId = team.org.id) => `/orgs/${orgId}${path}`;
const withCode = (statusCode: number, error: string, code: ErrorCode, message: unknown) => ({
  statusCode,
  message,
  error,
  code,
});

describe('400 validation_failed', () => {
  it('lists one detail per message, in the same order, pointing at each field', async () => {
    const { project } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const res = await answer(t.app, 'POST', orgUrl('/forms'), {
      as: team.officer,
      body: {
        projectId: project.id,
        title: 'x'.repeat(301),
        fields: [
          { type: 'text', label: 'Name', key: 'name' },
          { type: 'text', label: 'Age' },
        ],
        'odd/key~': true,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      message: [
        'property odd/key~ should not exist',
        'title must be at most 300 characters',
        'fields.1.key is required',
      ],
      error: 'Bad Request',
      code: 'validation_failed',
      details: [
        {
          in: 'body',
          path: '/odd~1key~0',
          rule: 'additionalProperties',
          message: 'property odd/key~ should not exist',
        },
        { in: 'body', path: '/title', rule: 'maxLength', message: 'title must be at most 300 characters' },
        { in: 'body', path: '/fields/1/key', rule: 'required', message: 'fields.1.key is required' },
      ],
    });
  });

  it('points a body that is not an object at the whole body', async () => {
    const res = await answer(t.app, 'POST', '/auth/login', { body: [1] });
    expect(res.body).toEqual({
      ...withCode(400, 'Bad Request', 'validation_failed', ['body must be an object']),
      details: [{ in: 'body', path: '', rule: 'type', message: 'body must be an object' }],
    });
  });

  it('names the path part for a path id that is not a UUID', async () => {
    const res = await answer(t.app, 'GET', orgUrl('/programs/not-a-uuid'), { as: team.admin });
    expect([res.status, res.body]).toEqual([
      400,
      {
        ...withCode(400, 'Bad Request', 'validation_failed', ['id must be a UUID']),
        details: [{ in: 'path', path: '/id', rule: 'format', message: 'id must be a UUID' }],
      },
    ]);
  });

  it('names the query part for a query string value out of range', async () => {
    const res = await answer(t.app, 'GET', orgUrl('/programs?limit=500&page=0'), { as: team.admin });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details).toEqual(
      res.body.message.map((message: string) => ({
        in: 'query',
        path: message.startsWith('limit') ? '/limit' : '/page',
        rule: message.startsWith('limit') ? 'maximum' : 'minimum',
        message,
      })),
    );
    expect([...res.body.message].sort()).toEqual([
      'limit must not be greater than 100',
      'page must not be less than 1',
    ]);
  });

  it("points a service's rule at the field its message names, when the request sent it", async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await answer(t.app, 'POST', orgUrl(`/projects/${project.id}/reporting-periods`), {
      as: team.officer,
      body: { label: 'Backwards', startDate: '2026-06-30', endDate: '2026-04-01' },
    });
    expect([res.status, res.body]).toEqual([
      400,
      {
        ...withCode(400, 'Bad Request', 'validation_failed', ['endDate must not be before startDate']),
        details: [
          { in: 'body', path: '/endDate', rule: 'invalid', message: 'endDate must not be before startDate' },
        ],
      },
    ]);
  });

  it("points a service's rule about the query string into the query", async () => {
    const res = await answer(
      t.app,
      'GET',
      orgUrl('/audit-log?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z'),
      {
        as: team.admin,
      },
    );
    expect(res.body).toEqual({
      ...withCode(400, 'Bad Request', 'validation_failed', ['from must not be after to']),
      details: [{ in: 'query', path: '/from', rule: 'invalid', message: 'from must not be after to' }],
    });
  });

  it('gives the whole request as the place of a rule that names no field sent', async () => {
    const res = await answer(t.app, 'POST', '/auth/token', {
      as: team.admin,
      body: { email: team.admin.email, password: 'whatever-it-is', organizationId: other.org.id },
    });
    expect(res.body).toEqual({
      ...withCode(400, 'Bad Request', 'validation_failed', [
        'send either email and password, or organizationId',
      ]),
      details: [
        {
          in: 'body',
          path: '',
          rule: 'invalid',
          message: 'send either email and password, or organizationId',
        },
      ],
    });
  });
});

describe('400 malformed_request and invalid_token', () => {
  it('answers JSON that does not parse with malformed_request', async () => {
    const res = await answer(t.app, 'POST', '/auth/login', {
      body: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.body]).toEqual([
      400,
      {
        ...withCode(400, 'Bad Request', 'malformed_request', ['Body is not valid JSON']),
        details: [{ in: 'body', path: '', rule: 'json', message: 'Body is not valid JSON' }],
      },
    ]);
  });

  it('answers an unknown reset token with invalid_token about the token field', async () => {
    const res = await answer(t.app, 'POST', '/auth/reset-password', {
      body: { token: 'never-issued', password: 'a long enough passphrase' },
    });
    expect([res.status, res.body]).toEqual([
      400,
      {
        ...withCode(400, 'Bad Request', 'invalid_token', ['Invalid or expired reset token']),
        details: [{ in: 'body', path: '/token', rule: 'invalid', message: 'Invalid or expired reset token' }],
      },
    ]);
  });
  it('keeps code and details on a route whose schema declares its 400 (the serializer drops the rest)', async () => {
    const res = await answer(t.app, 'POST', '/auth/verify-email', { body: { token: 'never-issued' } });
    expect([res.status, res.body]).toEqual([
      400,
      {
        ...withCode(400, 'Bad Request', 'invalid_token', ['Invalid or expired verification token']),
        details: [
          { in: 'body', path: '/token', rule: 'invalid', message: 'Invalid or expired verification token' },
        ],
      },
    ]);
  });
});

describe('401 with a Bearer challenge', () => {
  it('answers no session with unauthorized and a bare challenge', async () => {
    const res = await answer(t.app, 'GET', orgUrl('/programs'));
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([401, UNAUTHORIZED, 'Bearer']);
  });

  it('answers a token that does not verify with error="invalid_token"', async () => {
    const res = await answer(t.app, 'GET', orgUrl('/programs'), { as: { token: 'not.a.jwt' } });
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([
      401,
      UNAUTHORIZED,
      'Bearer error="invalid_token"',
    ]);
  });

  it('answers a revoked token with error="invalid_token"', async () => {
    const login = await call(t.app, 'POST', '/auth/token', {
      body: { email: team.viewer.email, password: team.viewer.password },
    });
    const session = { token: login.body.accessToken as string };
    expect((await call(t.app, 'POST', '/auth/logout', { as: session })).status).toBe(204);
    const res = await answer(t.app, 'GET', orgUrl('/programs'), { as: session });
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([
      401,
      UNAUTHORIZED,
      'Bearer error="invalid_token"',
    ]);
  });

  it('answers a failed login with invalid_credentials', async () => {
    const res = await answer(t.app, 'POST', '/auth/login', {
      body: { email: team.admin.email, password: 'not the password' },
    });
    expect([res.status, res.body, res.headers['www-authenticate']]).toEqual([
      401,
      withCode(401, 'Unauthorized', 'invalid_credentials', 'Invalid email or password'),
      'Bearer',
    ]);
  });
});

describe('403', () => {
  it('answers a role that may not act with forbidden', async () => {
    const res = await answer(t.app, 'POST', programsUrl(team.org.id), {
      as: team.viewer,
      body: { name: 'Not mine to make', startDate: '2026-01-01', endDate: '2026-12-31' },
    });
    expect([res.status, res.body]).toEqual([403, roleRefused(ADMINS)]);
    expect(roleRefused(ADMINS).code).toBe('forbidden');
  });

  it("answers another organization's path with forbidden", async () => {
    const res = await answer(t.app, 'GET', orgUrl('/programs', other.org.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([403, notAMember(ALL_ROLES)]);
  });

  it('answers a report in a locked period with period_locked', async () => {
    const { project, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const locked = await createPeriod(t.database.db, team.org.id, project.id, {
      label: 'Locked',
      startDate: '2027-01-01',
      endDate: '2027-03-31',
      isLocked: true,
      lockedAt: new Date(),
      lockedBy: team.admin.id,
    });
    const res = await answer(t.app, 'POST', orgUrl(`/projects/${project.id}/indicator-reports`), {
      as: team.officer,
      body: { indicatorId: indicator.id, reportingPeriodId: locked.id, value: 1 },
    });
    expect([res.status, res.body]).toEqual([
      403,
      withCode(403, 'Forbidden', 'period_locked', 'Reporting period is locked'),
    ]);
  });
});

describe('404 not_found', () => {
  it('answers a missing resource', async () => {
    const res = await answer(t.app, 'GET', orgUrl(`/programs/${MISSING_ID}`), { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Program')]);
    expect(res.body.code).toBe('not_found');
  });

  it('answers an unknown route', async () => {
    const res = await answer(t.app, 'GET', '/no/such/route');
    expect([res.status, res.body]).toEqual([
      404,
      withCode(404, 'Not Found', 'not_found', 'Route GET /no/such/route not found'),
    ]);
  });
});

describe('409', () => {
  it('answers a taken donor code with duplicate', async () => {
    const code = uniqueDonorCode();
    const body = { name: 'USAID', code, type: 'bilateral' };
    expect((await call(t.app, 'POST', orgUrl('/donors'), { as: team.admin, body })).status).toBe(201);
    const res = await answer(t.app, 'POST', orgUrl('/donors'), { as: team.admin, body });
    expect([res.status, res.body]).toEqual([
      409,
      withCode(409, 'Conflict', 'duplicate', 'A donor with this code already exists'),
    ]);
  });

  it('answers a taken indicator code with duplicate, settled by the unique index or the service', async () => {
    const indicator = await postIndicator(t.app, team.officer, team.org.id);
    const res = await answer(t.app, 'POST', orgUrl('/indicators'), {
      as: team.officer,
      body: { name: 'Again', code: indicator.code, unit: 'people', aggregationMethod: 'sum' },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('duplicate');
  });

  it('answers deleting a program with active projects with has_dependents', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    await postProject(t.app, team.admin, team.org.id, program.id, { status: 'active' });
    const res = await answer(t.app, 'DELETE', orgUrl(`/programs/${program.id}`), { as: team.admin });
    expect([res.status, res.body]).toEqual([
      409,
      withCode(409, 'Conflict', 'has_dependents', 'Program has active projects'),
    ]);
  });

  it('answers a period the foreign key keeps (a form uses it) with has_dependents', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.officer, team.org.id);
    const form = await call(t.app, 'POST', orgUrl('/forms'), {
      as: team.officer,
      body: {
        projectId: project.id,
        indicatorId: indicator.id,
        reportingPeriodId: period.id,
        title: 'Uses the period',
        fields: [{ type: 'text', label: 'Name', key: 'name' }],
      },
    });
    expect(form.status, JSON.stringify(form.body)).toBe(201);
    const res = await answer(t.app, 'DELETE', orgUrl(`/reporting-periods/${period.id}`), { as: team.admin });
    expect([res.status, res.body]).toEqual([
      409,
      withCode(409, 'Conflict', 'has_dependents', 'Reporting period is used by a form'),
    ]);
  });

  it('answers an illegal status change with invalid_transition', async () => {
    const program = await postProgram(t.app, team.admin, team.org.id);
    const res = await answer(t.app, 'PATCH', orgUrl(`/programs/${program.id}`), {
      as: team.admin,
      body: { status: 'completed' },
    });
    expect([res.status, res.body]).toEqual([
      409,
      withCode(409, 'Conflict', 'invalid_transition', 'Cannot change program status from draft to completed'),
    ]);
  });

  it('answers the demotion of the last org_admin with has_dependents', async () => {
    const res = await answer(t.app, 'PATCH', orgUrl(`/members/${team.admin.id}`), {
      as: team.admin,
      body: { role: 'viewer' },
    });
    expect([res.status, res.body]).toEqual([
      409,
      withCode(
        409,
        'Conflict',
        'has_dependents',
        'The last org_admin of an organization can be neither demoted nor removed',
      ),
    ]);
  });
});

describe('410, 413, 415, 429 and 500', () => {
  it('answers a public form past closesAt with form_closed', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.officer, team.org.id, { projectId: project.id });
    await t.database.db.execute(
      sql`UPDATE forms SET closes_at = now() - interval '1 second' WHERE id = ${form.id}`,
    );
    const res = await answer(t.app, 'GET', publicFormUrl(form.publicToken));
    expect([res.status, res.body]).toEqual([
      410,
      withCode(410, 'Gone', 'form_closed', 'This form is no longer accepting responses'),
    ]);
  });

  it('answers a body over 1 MiB with payload_too_large', async () => {
    const res = await answer(t.app, 'POST', '/auth/login', {
      body: JSON.stringify({ email: 'a@b.org', password: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.body]).toEqual([
      413,
      withCode(413, 'Payload Too Large', 'payload_too_large', 'Request body is larger than 1 MiB'),
    ]);
  });

  it('answers a content type other than JSON with unsupported_media_type', async () => {
    const res = await answer(t.app, 'POST', '/auth/login', {
      body: 'email=a@b.org',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([res.status, res.body]).toEqual([
      415,
      withCode(
        415,
        'Unsupported Media Type',
        'unsupported_media_type',
        'Unsupported content type; send application/json',
      ),
    ]);
  });

  it('answers a spent rate limit with rate_limited', async () => {
    const limited = await buildTestApp(
      { TRUST_PROXY: 'true', RATE_LIMIT_MAX: '2' },
      { database: t.database },
    );
    try {
      // With Redis the first requests may pass before the store is connected: ask until refused.
      const headers = { 'x-forwarded-for': `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}` };
      let res = await answer(limited.app, 'GET', '/orgs', { headers });
      for (let i = 0; i < 200 && res.status !== 429; i++)
        res = await answer(limited.app, 'GET', '/orgs', { headers });
      const seconds = Number(res.headers['retry-after']);
      expect([res.status, res.body]).toEqual([
        429,
        withCode(429, 'Too Many Requests', 'rate_limited', `Too many requests, retry in ${seconds} seconds`),
      ]);
    } finally {
      await limited.app.close();
    }
  });

  it('answers a failure it did not foresee with internal_error, hiding the cause', async () => {
    const res = await answer(t.app, 'POST', orgUrl('/donors'), {
      as: team.admin,
      body: { name: 'Refused donor', code: uniqueDonorCode(), type: 'ngo' },
    });
    expect([res.status, res.body]).toEqual([
      500,
      withCode(500, 'Internal Server Error', 'internal_error', 'Internal server error'),
    ]);
  });
});

describe('the enum', () => {
  it('gives every status the service answers a code of the enum', () => {
    for (let status = 400; status < 600; status++) expect(ERROR_CODES).toHaveProperty(codeOfStatus(status));
  });

  it('holds every code this file met', () => {
    expect(seen.size).toBeGreaterThan(10);
    for (const code of seen) expect(ERROR_CODES).toHaveProperty(code);
  });

  it("is the document's Error schema enum, with code required and details optional", async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
    const error = doc.components.schemas.Error;
    expect(error.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
    expect(error.required).toContain('code');
    expect(error.required).not.toContain('details');
    expect(Object.keys(error.properties.details.items.properties).sort()).toEqual([
      'in',
      'message',
      'path',
      'rule',
    ]);
  });

  it('gives every code a one-line meaning in snake_case', () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(meaning).not.toContain('\n');
      expect(meaning.length).toBeGreaterThan(10);
    }
  });
});
