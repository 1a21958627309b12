/**
 * Issue 36, finding 13 (found by the fuzzer): a `boundary=` of 300 characters on the public submission
 * was a 500 (busboy throws "The needle cannot have a length bigger than 256"). A boundary is 1 to 70
 * characters (RFC 2046): anything else is a 400 `malformed_request`, on every route that takes multipart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProject, createTeam, type Team } from '../helpers/factories.js';
import { PDF } from '../helpers/files.js';
import { publishedForm, submitUrl } from '../helpers/forms.js';

let t: TestApp;
let team: Team;
let token: string;
let projectId: string;

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  const project = await createProject(t.database.db, team.org.id);
  projectId = project.id;
  const form = await publishedForm(t.app, team.admin, team.org.id, { projectId });
  token = form.publicToken;
});
afterAll(() => t.close());

/** A multipart body with the given boundary: the `data` part, or a file part. */
function body(boundary: string, part: 'data' | 'file') {
  const head =
    part === 'data'
      ? 'Content-Disposition: form-data; name="data"\r\n\r\n'
      : 'Content-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n';
  const value =
    part === 'data' ? Buffer.from(JSON.stringify({ answers: { name: 'Achieng', source: 'well' } })) : PDF;
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\n${head}`),
    value,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

const submit = (contentType: string, boundary: string) =>
  t.app.inject({
    method: 'POST',
    url: submitUrl(token),
    headers: { 'content-type': contentType },
    payload: body(boundary, 'data'),
  });

const upload = (boundary: string) =>
  t.app.inject({
    method: 'POST',
    url: `/orgs/${team.org.id}/projects/${projectId}/attachments`,
    headers: {
      authorization: `Bearer ${team.admin.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    payload: body(boundary, 'file'),
  });

const malformed = {
  statusCode: 400,
  code: 'malformed_request',
  message: ['A multipart body needs a boundary of 1 to 70 characters'],
  details: [
    {
      in: 'body',
      path: '',
      rule: 'multipart',
      message: 'A multipart body needs a boundary of 1 to 70 characters',
    },
  ],
};

describe('the public submission', () => {
  it.each([71, 256, 300, 5000])('a boundary of %i characters is a 400', async (length) => {
    const res = await submit(`multipart/form-data; boundary=${'b'.repeat(length)}`, 'b'.repeat(length));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject(malformed);
  });

  it('a quoted long boundary, and an empty or missing one, are 400s too', async () => {
    const long = 'q'.repeat(300);
    expect((await submit(`multipart/form-data; boundary="${long}"`, long)).statusCode).toBe(400);
    expect((await submit('multipart/form-data; boundary=', 'x')).json()).toMatchObject(malformed);
    expect((await submit('multipart/form-data', 'x')).json()).toMatchObject(malformed);
  });

  it('a boundary of 70 characters is taken', async () => {
    const boundary = 'c'.repeat(70);
    const res = await submit(`multipart/form-data; boundary=${boundary}`, boundary);
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('an attachment upload', () => {
  it('a boundary of 300 characters is a 400', async () => {
    const res = await upload('d'.repeat(300));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject(malformed);
  });

  it('a boundary of 70 characters is taken', async () => {
    const res = await upload('e'.repeat(70));
    expect(res.statusCode, res.body).toBe(201);
  });
});
