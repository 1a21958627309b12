/**
 * Issue 36, finding 1: a 1 MiB JSON body of about 110,000 unknown keys got one problem per key, a 14-16 MB
 * 400 built in seconds of the only thread, unauthenticated. An object with more keys than it may have is
 * now refused with one problem, counted before anything is checked, and no 400 lists more than
 * MAX_PROBLEMS problems (then `and N more problems`).
 */
import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROBLEMS } from '../../src/errors/catalogue.js';
import { registerValidation } from '../../src/http/schemas/validation.js';
import { createProject } from '../helpers/factories.js';
import { multipart } from '../helpers/files.js';
import { formsUrl, publishedForm, submitUrl } from '../helpers/forms.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

/** `base` and then unknown keys (`"2s9x":0,`) until the JSON text is just under 1 MiB: about 110,000. */
function bloated(base: Record<string, unknown>, into?: string): Record<string, unknown> {
  const extra: Record<string, number> = {};
  let size = JSON.stringify(base).length + 200;
  for (let i = 0; size < 1_040_000; i++) {
    const key = `_${i.toString(36)}`;
    extra[key] = 0;
    size += key.length + 5;
  }
  return into ? { ...base, [into]: { ...(base[into] as object), ...extra } } : { ...base, ...extra };
}

const send = (method: 'POST', url: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });

/** A 400 with the contract's body, small, with one detail per message. */
function expectSmall400(res: { statusCode: number; body: string }) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
  expect(res.body.length).toBeLessThan(8_000);
  const body = JSON.parse(res.body);
  expect(body.code).toBe('validation_failed');
  const messages = [body.message].flat();
  expect(messages.length).toBeLessThanOrEqual(MAX_PROBLEMS + 1);
  expect(body.details).toHaveLength(messages.length);
  return body;
}

describe('an unauthenticated body of 110,000 unknown keys', () => {
  const routes: [string, Record<string, unknown>][] = [
    ['/auth/login', { email: 'a@example.org', password: 'whatever' }],
    [
      '/auth/register',
      { email: 'a@example.org', password: 'long enough pass', firstName: 'A', lastName: 'B' },
    ],
    ['/auth/token', { email: 'a@example.org', password: 'whatever' }],
    ['/auth/forgot-password', { email: 'a@example.org' }],
    ['/auth/reset-password', { token: 'x'.repeat(40), password: 'long enough pass' }],
    ['/auth/verify-email', { token: 'x'.repeat(40) }],
  ];

  it.each(routes)('%s: one problem, the object has too many properties', async (url, base) => {
    const body = expectSmall400(await send('POST', url, bloated(base)));
    expect(body.details).toEqual([expect.objectContaining({ in: 'body', path: '', rule: 'maxProperties' })]);
    expect(body.message).toEqual([expect.stringMatching(/^body must have at most \d+ properties$/)]);
  });

  it('a few unknown keys are still each named', async () => {
    const res = await send('POST', '/auth/login', { email: 'a@example.org', password: 'x', extra: 1 });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).message).toEqual(['property extra should not exist']);
  });
});

describe('the public submission', () => {
  let token: string;
  beforeAll(async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.admin, team.org.id, { projectId: project.id });
    token = form.publicToken;
  });

  it('JSON with 110,000 unknown answers: one problem', async () => {
    const body = expectSmall400(await send('POST', submitUrl(token), bloated({ answers: {} }, 'answers')));
    // The count, then the required fields that have no answer: no problem per unknown key.
    expect(body.message).toEqual([
      'answers must have at most 5 properties (one per field of this form)',
      'answers.name is required',
      'answers.source is required',
    ]);
  });

  it('JSON with 110,000 unknown keys beside the answers: one problem', async () => {
    const body = expectSmall400(await send('POST', submitUrl(token), bloated({ answers: { name: 'A' } })));
    expect(body.message).toEqual(['body must have at most 2 properties', 'answers.source is required']);
  });

  it('a location of 110,000 unknown keys: a small 400, the keys not each named', async () => {
    const body = expectSmall400(
      await send(
        'POST',
        submitUrl(token),
        bloated({ answers: { name: 'A', source: 'well' }, location: {} }, 'location'),
      ),
    );
    expect(body.message.length).toBeLessThanOrEqual(MAX_PROBLEMS + 1);
  });

  it('the multipart data part with 110,000 unknown answers: a small 400', async () => {
    const data = JSON.stringify(bloated({ answers: {} }, 'answers'));
    const { body, headers } = multipart([{ name: 'data', value: data }]);
    const res = await t.app.inject({ method: 'POST', url: submitUrl(token), headers, payload: body });
    expectSmall400(res);
  });

  it('the same key bound holds with an Idempotency-Key', async () => {
    const res = await send('POST', submitUrl(token), bloated({ answers: {} }, 'answers'), {
      'idempotency-key': 'bloated-1',
    });
    expectSmall400(res);
  });
});

describe('many problems within the key limits', () => {
  it('lists the first MAX_PROBLEMS, then how many more', async () => {
    const project = await createProject(t.database.db, team.org.id);
    // 200 fields (the most a form takes), each with a label too long and a bad type: 400 problems.
    const fields = Array.from({ length: 200 }, (_, i) => ({
      key: `f${i}`,
      label: 'x'.repeat(600),
      type: 'nope',
    }));
    const res = await t.app.inject({
      method: 'POST',
      url: formsUrl(team.org.id),
      headers: { authorization: `Bearer ${team.admin.token}` },
      payload: { title: 'Many problems', projectId: project.id, fields },
    });
    const body = expectSmall400(res);
    expect(body.message).toHaveLength(MAX_PROBLEMS + 1);
    const last = body.details.at(-1);
    expect(last).toMatchObject({ in: 'body', path: '', rule: 'maxProblems' });
    expect(last.message).toMatch(/^and \d+ more problems$/);
    expect(Number(/\d+/.exec(last.message)![0])).toBeGreaterThan(100);
  });
});

describe('an array longer than its maxItems', () => {
  it('is refused with one problem before each item is checked', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await t.app.inject({
      method: 'POST',
      url: formsUrl(team.org.id),
      headers: { authorization: `Bearer ${team.admin.token}` },
      payload: { title: 'Long', projectId: project.id, fields: Array.from({ length: 150_000 }, () => 1) },
    });
    const body = expectSmall400(res);
    expect(body.details).toEqual([
      { in: 'body', path: '/fields', rule: 'maxItems', message: 'fields must contain at most 200 items' },
    ]);
  });
});

describe('the work is bounded, not only the answer', () => {
  it('the validator makes one problem for a body of 110,000 unknown keys, not 110,000', async () => {
    const app = Fastify();
    registerValidation(app);
    app.post(
      '/probe',
      {
        attachValidation: true,
        schema: {
          body: {
            type: 'object',
            properties: { a: { type: 'string' } },
            additionalProperties: false,
          },
        },
      },
      (request) => ({ problems: request.validationError?.validation?.length ?? 0 }),
    );
    // A free-form object (a map) has a bound too.
    app.post(
      '/map',
      {
        attachValidation: true,
        schema: { body: { type: 'object', additionalProperties: { type: 'number' } } },
      },
      (request) => ({ problems: request.validationError?.validation?.length ?? 0 }),
    );
    const res = await app.inject({ method: 'POST', url: '/probe', payload: bloated({ a: 'x' }) });
    expect(res.json()).toEqual({ problems: 1 });
    const map = await app.inject({ method: 'POST', url: '/map', payload: bloated({}) });
    expect(map.json()).toEqual({ problems: 1 });
    await app.close();
  });
});
