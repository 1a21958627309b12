/**
 * Aborted clients (issue 10, suite 7) over real sockets: 200 requests cut mid-body (JSON and multipart,
 * authenticated and public) and 200 cut while they wait for a database connection under load. Afterwards
 * no transaction is left open, no connection leaked (PostgreSQL: pg_stat_activity), and the service
 * answers 100 normal requests at once as before.
 */
import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import type { Team } from './helpers/factories.js';
import { PDF } from './helpers/files.js';
import { publishedForm } from './helpers/forms.js';
import { teamWithResources, type Ids } from './helpers/route-calls.js';

let t: TestApp;
let team: Team;
let ids: Ids;
let port: number;
let formToken: string;

beforeAll(async () => {
  t = await buildTestApp();
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Cut project'));
  formToken = (await publishedForm(t.app, team.admin, team.org.id, { projectId: ids.project })).publicToken;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(() => t.close());

/** Sends the head and `sent` of the body, then cuts the connection after `cutAfterMs`. */
function cut(head: string[], sent: Buffer, declaredLength: number, cutAfterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head.join('\r\n')}\r\ncontent-length: ${declaredLength}\r\n\r\n`);
      if (sent.length) socket.write(sent);
      setTimeout(() => socket.destroy(), cutAfterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

const auth = () => `authorization: Bearer ${team.admin.token}`;

/** Connections to this test's own database by state (PostgreSQL only; the query's own included). */
async function connectionsByState(): Promise<Record<string, number> | null> {
  if (t.database.driver !== 'pg') return null;
  const result = await t.database.db.execute(
    sql`SELECT state, count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() GROUP BY state`,
  );
  return Object.fromEntries(
    rowsOf<{ state: string | null; count: number }>(result).map((row) => [row.state ?? 'none', row.count]),
  );
}

/** 100 normal requests at once, all answered. */
async function stillAnswers() {
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      fetch(`http://127.0.0.1:${port}/orgs/${team.org.id}/${i % 2 ? 'donors' : `projects/${ids.project}`}`, {
        headers: { authorization: `Bearer ${team.admin.token}` },
        signal: AbortSignal.timeout(20_000),
      }).then((res) => res.status),
    ),
  );
  expect(results.every((status) => status === 200)).toBe(true);
  return Date.now() - started;
}

describe('clients that go away', () => {
  it(
    'survives 200 requests cut mid-body: JSON and multipart, authenticated and public',
    { timeout: 60_000 },
    async () => {
      const org = `/orgs/${team.org.id}`;
      const json = Buffer.from('{"name":"Half a donor","code":"HALF-');
      const boundary = 'cutboundary';
      const multipartStart = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
        ),
        PDF.subarray(0, 64),
      ]);
      const kinds = [
        () =>
          cut(
            [`POST ${org}/donors HTTP/1.1`, 'host: x', auth(), 'content-type: application/json'],
            json,
            500,
            5,
          ),
        () =>
          cut(
            [`POST /forms/public/${formToken}/submit HTTP/1.1`, 'host: x', 'content-type: application/json'],
            Buffer.from('{"answers":{"name":"Ach'),
            400,
            5,
          ),
        () =>
          cut(
            [
              `POST ${org}/projects/${ids.project}/attachments HTTP/1.1`,
              'host: x',
              auth(),
              `content-type: multipart/form-data; boundary=${boundary}`,
            ],
            multipartStart,
            100_000,
            10,
          ),
        () =>
          cut(
            [
              `POST /forms/public/${formToken}/submit HTTP/1.1`,
              'host: x',
              `content-type: multipart/form-data; boundary=${boundary}`,
            ],
            multipartStart,
            100_000,
            10,
          ),
      ];
      await Promise.all(Array.from({ length: 200 }, (_, i) => kinds[i % kinds.length]!()));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const open = await connectionsByState();
      if (open) expect(open['idle in transaction'] ?? 0).toBe(0);
      await stillAnswers();
    },
  );

  it(
    'survives 200 requests cut while waiting for a database connection under load',
    { timeout: 60_000 },
    async () => {
      const org = `/orgs/${team.org.id}`;
      const reads = [
        `GET ${org}/dashboard-summary HTTP/1.1`,
        `GET ${org}/indicators?status=off_track HTTP/1.1`,
        `GET ${org}/reports HTTP/1.1`,
      ];
      const writes = [`POST ${org}/donors HTTP/1.1`];
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const write = i % 4 === 0;
          const body = write
            ? Buffer.from(JSON.stringify({ name: `Cut ${i}`, code: `CUT-${i}`, type: 'private' }))
            : Buffer.alloc(0);
          const line = write ? writes[0]! : reads[i % reads.length]!;
          return cut(
            [line, 'host: x', auth(), ...(write ? ['content-type: application/json'] : [])],
            body,
            body.length,
            1 + (i % 15),
          );
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const open = await connectionsByState();
      if (open) {
        expect(open['idle in transaction'] ?? 0).toBe(0);
        // The pool (5 in tests) and nothing more, whatever was cut.
        expect(Object.values(open).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
      }
      await stillAnswers();
    },
  );
});
