import { existsSync, readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProject, createTeam, type Team } from '../helpers/factories.js';
import { formTargets, formUrl, postForm } from '../helpers/forms.js';
import { call } from '../helpers/http.js';

// Small limits, so that a cut-off shows within seconds; production defaults are in src/config.ts.
const LIMITS = {
  REQUEST_TIMEOUT: '3s',
  HEADERS_TIMEOUT: '1s',
  KEEP_ALIVE_TIMEOUT: '1s',
  CONNECTION_TIMEOUT: '20s',
};
/** However slow the client, the server must have let go by then. */
const BOUND_MS = 10_000;

let t: TestApp;
let team: Team;
let port: number;
const logs: string[] = [];

beforeAll(async () => {
  t = await buildTestApp(LIMITS, {
    logger: { level: 'warn', stream: { write: (line: string) => void logs.push(line) } },
  });
  team = await createTeam(t.app, t.database.db);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

interface Outcome {
  /** From the first byte sent to the server's answer or close, or to giving up. */
  ms: number;
  closedByServer: boolean;
  response: string;
}

/** Sends `head`, then one byte of `drip` every `everyMs` until the server answers and closes, or BOUND_MS + 5 s. */
function slowClient(head: string | Buffer, drip: Buffer, everyMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    let response = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      if (head.length) socket.write(head);
      timer = setInterval(() => {
        if (sent < drip.length && socket.writable) socket.write(drip.subarray(sent, ++sent));
      }, everyMs);
    });
    const giveUp = setTimeout(() => finish(false), BOUND_MS + 5000);
    function finish(closedByServer: boolean) {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ ms: Date.now() - started, closedByServer, response });
    }
    socket.on('data', (data) => (response += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
  });
}

/** The status line and the JSON body of a raw HTTP/1.1 answer. */
function parsed(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: head.split('\r\n')[0], body: body ? (JSON.parse(body) as unknown) : null };
}

const TIMEOUT_BODY = {
  statusCode: 408,
  error: 'Request Timeout',
  message: 'Client Timeout',
  code: 'request_timeout',
};

function expectCutOff(outcome: Outcome, atLeastMs: number) {
  const took = `cut after ${outcome.ms} ms`;
  expect(outcome.closedByServer, took).toBe(true);
  expect(outcome.ms, took).toBeLessThan(BOUND_MS);
  expect(outcome.ms, took).toBeGreaterThanOrEqual(atLeastMs - 100);
  expect(parsed(outcome.response)).toEqual({ status: 'HTTP/1.1 408 Request Timeout', body: TIMEOUT_BODY });
  console.info(`finding 8: ${took}`);
}

/** Every file under DATA_DIR/files, partial uploads included. */
function storedFiles(): string[] {
  const root = path.join(t.config.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

/** Nothing at error level was logged: a cut-off is the client's doing, not a server failure. */
const serverErrors = () => logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

// Concurrently: each test mostly waits on a slow client of its own, on a connection of its own.
describe.concurrent('finding 8: slow clients are cut off', () => {
  it('applies the configured limits to the listening server', () => {
    const server = t.app.server;
    expect({
      requestTimeout: server.requestTimeout,
      headersTimeout: server.headersTimeout,
      keepAliveTimeout: server.keepAliveTimeout,
      timeout: server.timeout,
    }).toEqual({ requestTimeout: 3000, headersTimeout: 1000, keepAliveTimeout: 1000, timeout: 20_000 });
  });

  it('answers 408 to a JSON body sent a byte a second, within the bound', async () => {
    const head =
      'POST /auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    expectCutOff(await slowClient(head, Buffer.from(`{"email":"${'a'.repeat(90)}`), 1000), 3000);
    expect((await call(t.app, 'GET', '/health')).status).toBe(200);
    expect(serverErrors()).toEqual([]);
  });

  it('answers 408 to an authenticated multipart upload sent a byte a second, and stores nothing', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const url = `/orgs/${team.org.id}/projects/${project.id}/attachments`;
    const head =
      `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${team.admin.token}\r\n` +
      'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n' +
      '--b\r\nContent-Disposition: form-data; name="file"; filename="slow.pdf"\r\n\r\n%PDF-1.4\n';
    expectCutOff(await slowClient(head, Buffer.alloc(500, 'x'), 1000), 3000);
    const list = await call(t.app, 'GET', url, { as: team.admin });
    expect([list.status, list.body]).toEqual([200, []]);
    // Nor a partial file: the cut-off ends the upload as a client leaving would.
    for (let i = 0; i < 50 && storedFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(storedFiles()).toEqual([]);
    expect(serverErrors()).toEqual([]);
  });

  it('answers 408 to headers sent a byte at a time, and closes a connection that sends nothing', async () => {
    const drip = Buffer.from('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200));
    expectCutOff(await slowClient('', drip, 300), 1000);
    const silent = await slowClient('', Buffer.alloc(0), 1000);
    expect(silent.closedByServer, `closed after ${silent.ms} ms`).toBe(true);
    expect(silent.ms).toBeLessThan(BOUND_MS);
  });

  it('closes a kept-alive connection once it has been idle for KEEP_ALIVE_TIMEOUT', async () => {
    const outcome = await slowClient(
      'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
      Buffer.alloc(0),
      1000,
    );
    expect(outcome.response).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(outcome.closedByServer, `closed after ${outcome.ms} ms`).toBe(true);
    expect(outcome.ms).toBeLessThan(BOUND_MS);
  });

  it('limits receiving the request, not sending the answer: a CSV export read slowly arrives whole', async () => {
    // The limit the answer outlives is in force on this server.
    expect(t.app.server.requestTimeout).toBe(3000);
    const { project } = await formTargets(t.app, t.database.db, team.admin, team.org.id);
    const form = await postForm(t.app, team.admin, team.org.id, { projectId: project.id });
    // About 12 MB: more than the socket buffers hold, so the server is still writing when the client pauses.
    const rows = 3000;
    const marker = `slow-reader-${'x'.repeat(4000)}`;
    await t.database.db.execute(sql`
      INSERT INTO form_submissions (id, org_id, form_id, answers, counted, submitted_at)
      SELECT gen_random_uuid(), ${team.org.id}, ${form.id},
             jsonb_build_object('name', ${marker}::text, 'household_size', i), false,
             now() - make_interval(secs => i)
      FROM generate_series(1, ${rows}) AS i`);

    const started = Date.now();
    const { status, body } = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        path: `${formUrl(team.org.id, form.id)}/submissions.csv`,
        headers: { authorization: `Bearer ${team.admin.token}` },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        // Longer than REQUEST_TIMEOUT and Node's checking interval together.
        res.once('data', () => {
          res.pause();
          setTimeout(() => res.resume(), 5000);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(5000);
    expect(body.split(marker).length - 1).toBe(rows);
    expect(serverErrors()).toEqual([]);
  }, 60_000);
});
