/**
 * Issue 36, finding 10: a 100,000-deep array in an answer with an `Idempotency-Key` overflowed the stack
 * while the request was fingerprinted: a 500 (without a key: a 400). A JSON body nesting arrays and
 * objects more than MAX_DEPTH levels is now refused as it is parsed, with or without a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DEPTH } from '../../src/http/schemas/validation.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProject, createTeam, type Team } from '../helpers/factories.js';
import { publishedForm, submitUrl } from '../helpers/forms.js';

let t: TestApp;
let team: Team;
let token: string;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  token = (await publishedForm(t.app, team.admin, team.org.id, { projectId: project.id })).publicToken;
});
afterAll(() => t.close());

/** `{"answers":{"name":[[[...]]]}}` with `depth` levels in all, as text (JSON.stringify would overflow). */
const nested = (depth: number) => `{"answers":{"name":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;

const TOO_DEEP = {
  statusCode: 400,
  error: 'Bad Request',
  code: 'validation_failed',
  message: [`body must not nest arrays and objects more than ${MAX_DEPTH} levels deep`],
  details: [
    {
      in: 'body',
      path: '',
      rule: 'maxDepth',
      message: `body must not nest arrays and objects more than ${MAX_DEPTH} levels deep`,
    },
  ],
};

const submit = (payload: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: submitUrl(token),
    headers: { 'content-type': 'application/json', ...headers },
    payload,
  });

describe('a deeply nested body', () => {
  it('100,000 levels with an Idempotency-Key: 400, not 500', async () => {
    const res = await submit(nested(100_000), { 'idempotency-key': 'deep-1' });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(400);
    expect(res.json()).toEqual(TOO_DEEP);
  });

  it('100,000 levels without a key: the same 400', async () => {
    const res = await submit(nested(100_000));
    expect(res.json()).toEqual(TOO_DEEP);
  });

  it('on a signed-in route too', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/orgs/${team.org.id}/donors`,
      headers: {
        authorization: `Bearer ${team.admin.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'deep-2',
      },
      payload: `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    });
    expect(res.json()).toEqual(TOO_DEEP);
  });

  it(`${MAX_DEPTH} levels are read and checked as usual`, async () => {
    const res = await submit(nested(MAX_DEPTH), { 'idempotency-key': 'deep-3' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('answers.name must be a string');
  });
});
