/**
 * `npm run test:crash` (issue 10, suite 5): the real server as a child process, a stream of writes from
 * several clients, SIGKILL in the middle, a restart on the same data, and every write that got a 2xx
 * read back intact. Readers of personal data run beside the writers (issue 22): every participant list
 * that was answered, and every CSV export of personal answers whose stream had begun, must have its
 * audit entry after the restart. Webhooks too (issue 25): public submissions go on beside the writers, each
 * queuing a `form_submission.created` delivery to a receiver here; the receiver stops answering just before
 * the kill, so deliveries are pending (and some in flight) when the process dies. After the restart every
 * acknowledged submission must reach the receiver, and none it answered 2xx may come again. On embedded PGlite always; on PostgreSQL too when TEST_DATABASE_URL is set (a
 * database of its own is created and dropped). Prints what it checked; exits 1 on any loss.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startServer, type Server } from '../bench/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WRITERS = 8;
/** Writes acknowledged before the kill, at least. */
const BEFORE_KILL = 150;

/** A donor as the 201 answer showed it. */
type Written = Record<string, unknown> & { id: string };

async function json(res: Response) {
  const text = await res.text();
  return (text ? JSON.parse(text) : null) as Record<string, unknown>;
}

async function setUp(url: string) {
  const email = `crash-${randomUUID().slice(0, 8)}@example.org`;
  const password = 'correct horse battery';
  const registered = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, firstName: 'Crash', lastName: 'Test' }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  const cookie = registered.headers.get('set-cookie')!.split(';')[0]!;
  const org = await json(
    await fetch(`${url}/orgs`, {
      method: 'POST',
      // A cookie session's changes must come from one of the service's origins (its BASE_URL here).
      headers: { 'content-type': 'application/json', cookie, origin: 'http://127.0.0.1' },
      body: JSON.stringify({ name: 'Crash NGO', code: `crash-${randomUUID().slice(0, 8)}` }),
    }),
  );
  // A fresh session carries the new organization.
  const token = await json(
    await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    }),
  );
  if (typeof org.id !== 'string' || typeof token.accessToken !== 'string') {
    throw new Error(`set-up failed: ${JSON.stringify({ org, token })}`);
  }
  return { orgId: org.id, auth: { authorization: `Bearer ${token.accessToken}` } };
}

/** A project with an activity of 20 people and a form with a personal field, 200 answers to it. */
async function personalData(url: string, orgId: string, auth: Record<string, string>) {
  const post = async (path_: string, body: unknown) => {
    const res = await fetch(`${url}${path_}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`POST ${path_}: ${res.status} ${await res.text()}`);
    return (await json(res)) as Record<string, string>;
  };
  const dates = { startDate: '2026-01-01', endDate: '2026-12-31' };
  const program = await post(`/orgs/${orgId}/programs`, { name: 'Crash program', ...dates });
  const project = await post(`/orgs/${orgId}/programs/${program.id}/projects`, {
    name: 'Crash project',
    code: 'crash',
    currency: 'USD',
    ...dates,
  });
  const activity = await post(`/orgs/${orgId}/projects/${project.id}/activities`, {
    title: 'Crash',
    ...dates,
  });
  await post(`/orgs/${orgId}/activities/${activity.id}/participants`, {
    participants: Array.from({ length: 20 }, (_, i) => ({
      firstName: `Person${i}`,
      lastName: 'Crash',
      sex: 'female',
      phone: `+25470000${String(i).padStart(4, '0')}`,
      nationalId: `CRASH-${i}`,
      village: 'V',
      district: 'D',
    })),
  });
  const form = await post(`/orgs/${orgId}/forms`, {
    title: 'Consent',
    projectId: project.id,
    fields: [{ type: 'text', key: 'name', label: 'Name', personal: true }],
  });
  const published = await post(`/orgs/${orgId}/forms/${form.id}/publish`, {});
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/forms/public/${published.publicToken}/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers: { name: `Respondent ${i}` } }),
    });
    if (res.status !== 201) throw new Error(`submit: ${res.status}`);
  }
  return {
    list: `/orgs/${orgId}/activities/${activity.id}/participants`,
    csv: `/orgs/${orgId}/forms/${form.id}/submissions.csv`,
    submit: `/forms/public/${published.publicToken}/submit`,
  };
}

/**
 * The organization's webhook receiver: which deliveries it answered 2xx (by webhook-id, the event's id),
 * the submissions they told of, and any it had answered before and got again. While holding (from just
 * before the kill) it answers nothing: those deliveries are cut by the kill and must come again.
 */
async function startReceiver() {
  const answered = new Set<string>();
  const submissions = new Set<string>();
  const again: string[] = [];
  const held: ServerResponse[] = [];
  let holding = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (holding) return void held.push(res);
      const id = String(req.headers['webhook-id']);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      if (answered.has(id)) again.push(id);
      // A little slow, so that deliveries queue up behind the submissions.
      setTimeout(() => {
        answered.add(id);
        submissions.add(body.data.id);
        res.writeHead(204).end();
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    submissions,
    again,
    /** Stops answering; resolves once a delivery is held (or after 5 s), and a moment more for answers in flight to be recorded. */
    async hold() {
      holding = true;
      for (let i = 0; i < 50 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500));
    },
    resume() {
      for (const res of held.splice(0)) res.destroy();
      holding = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

async function subscribe(url: string, orgId: string, auth: Record<string, string>, receiver: Receiver) {
  const res = await fetch(`${url}/orgs/${orgId}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ url: receiver.url, events: ['form_submission.created'] }),
  });
  if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${await res.text()}`);
}

/** Public submissions until the server dies: the ids of those answered 201. */
async function submitUntilKilled(server: Server, submit: string) {
  const acknowledged: string[] = [];
  const submitter = async () => {
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`${server.url}${submit}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ answers: { name: `Late respondent ${i}` } }),
        });
        if (res.status !== 201) throw new Error(`a submission answered ${res.status}: ${await res.text()}`);
        acknowledged.push(((await json(res)) as { id: string }).id);
      } catch (err) {
        if (server.rss() > 0) throw err;
        return;
      }
    }
  };
  return { acknowledged, done: submitter() };
}

/** Waits until the receiver has heard of every acknowledged submission (or 90 s); returns those it has not. */
async function undelivered(receiver: Receiver, acknowledged: string[]) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const missing = acknowledged.filter((id) => !receiver.submissions.has(id));
    if (missing.length === 0 || Date.now() > deadline) return missing;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Readers of personal data until the server dies: the request ids of every list answered in full and of
 * every export whose answer had begun (its status line and headers sent).
 */
async function readUntilKilled(
  server: Server,
  paths: { list: string; csv: string },
  auth: Record<string, string>,
) {
  const answered: string[] = [];
  const reader = async (n: number) => {
    for (let i = 0; ; i++) {
      const csv = i % 4 === 3;
      const requestId = `crash-${csv ? 'csv' : 'list'}-${n}-${i}`;
      try {
        const res = await fetch(`${server.url}${csv ? paths.csv : paths.list}`, {
          headers: { ...auth, 'x-request-id': requestId },
        });
        if (res.status !== 200) throw new Error(`a read answered ${res.status}: ${await res.text()}`);
        if (csv) answered.push(requestId);
        await res.arrayBuffer();
        if (!csv) answered.push(requestId);
      } catch (err) {
        if (server.rss() > 0) throw err;
        return; // the server is gone
      }
    }
  };
  return { answered, done: Promise.all([reader(0), reader(1)]) };
}

/** The request ids of every audit entry of the organization, read through the API. */
async function auditedRequests(url: string, orgId: string, auth: Record<string, string>) {
  const ids = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/orgs/${orgId}/audit-log?page=${page}&limit=100`, { headers: auth });
    if (res.status !== 200) throw new Error(`audit log: ${res.status} ${await res.text()}`);
    const { data, meta } = (await res.json()) as {
      data: { requestId: string | null }[];
      meta: { totalPages: number };
    };
    for (const entry of data) if (entry.requestId) ids.add(entry.requestId);
    if (page >= meta.totalPages) return ids;
  }
}

/** Writers create donors until the server dies; returns every donor the server acknowledged. */
async function writeUntilKilled(
  server: Server,
  orgId: string,
  auth: Record<string, string>,
  beforeKill: () => Promise<void>,
) {
  const acknowledged: Written[] = [];
  let stop = false;
  let killed: Promise<void> | undefined;
  const writer = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const code = `W${n}-${i}-${randomBytes(3).toString('hex')}`;
      const name = `Donor ${code} ✓ "quoted" ${'x'.repeat(i % 50)}`;
      try {
        const res = await fetch(`${server.url}/orgs/${orgId}/donors`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth },
          body: JSON.stringify({ name, code, type: 'private' }),
        });
        if (res.status === 201) {
          acknowledged.push((await json(res)) as Written);
        } else throw new Error(`a write answered ${res.status}: ${await res.text()}`);
      } catch (err) {
        if (!killed) throw err;
        return; // the server is gone
      }
      if (!killed && acknowledged.length >= BEFORE_KILL) {
        // SIGKILL: no shutdown hook, no flush; requests in flight are cut.
        killed = beforeKill().then(() => server.kill());
      }
    }
  };
  const writers = Array.from({ length: WRITERS }, (_, n) => writer(n));
  const deadline = setTimeout(() => (stop = true), 60_000);
  await Promise.all(writers);
  clearTimeout(deadline);
  stop = true;
  await killed;
  return acknowledged;
}

async function check(label: string, env: Record<string, string>): Promise<boolean> {
  const entry = path.join(root, 'src/server.ts');
  const first = await startServer('service', entry, env);
  const { orgId, auth } = await setUp(first.url);
  const paths = await personalData(first.url, orgId, auth);
  const receiver = await startReceiver();
  await subscribe(first.url, orgId, auth, receiver);
  const readers = await readUntilKilled(first, paths, auth);
  const submitters = await submitUntilKilled(first, paths.submit);
  const acknowledged = await writeUntilKilled(first, orgId, auth, () => receiver.hold());
  await readers.done;
  await submitters.done;
  const heardBeforeKill = receiver.submissions.size;
  receiver.resume();
  const second = await startServer('service', entry, env);
  const missing: string[] = [];
  let unaudited: string[];
  let unheard: string[];
  try {
    unheard = await undelivered(receiver, submitters.acknowledged);
    const audited = await auditedRequests(second.url, orgId, auth);
    unaudited = readers.answered.filter((id) => !audited.has(id));
    for (const written of acknowledged) {
      const res = await fetch(`${second.url}/orgs/${orgId}/donors/${written.id}`, { headers: auth });
      const body = res.status === 200 ? await json(res) : null;
      // Intact: exactly what the acknowledgement showed.
      if (JSON.stringify(body) !== JSON.stringify(written)) missing.push(`${written.id} (${res.status})`);
    }
  } finally {
    await second.stop();
    await receiver.close();
  }
  console.log(
    `${label}: ${acknowledged.length} writes acknowledged before SIGKILL, ${acknowledged.length - missing.length} read back intact` +
      (missing.length ? `; MISSING ${missing.slice(0, 5).join(', ')}` : ''),
  );
  const exports = readers.answered.filter((id) => id.includes('-csv-')).length;
  console.log(
    `${label}: ${readers.answered.length} reads of personal data answered (${exports} exports begun), ` +
      `${readers.answered.length - unaudited.length} with their audit entry` +
      (unaudited.length ? `; UNAUDITED ${unaudited.slice(0, 5).join(', ')}` : ''),
  );
  const submitted = submitters.acknowledged.length;
  console.log(
    `${label}: ${submitted} submissions acknowledged, ${submitted - heardBeforeKill} of them not yet delivered ` +
      `when the process died; ${submitted - unheard.length} delivered to the webhook receiver in the end, ` +
      `${receiver.again.length} answered 2xx and delivered again` +
      (unheard.length ? `; UNDELIVERED ${unheard.slice(0, 5).join(', ')}` : '') +
      (receiver.again.length ? `; AGAIN ${receiver.again.slice(0, 5).join(', ')}` : ''),
  );
  return (
    unheard.length === 0 &&
    receiver.again.length === 0 &&
    submitted > 0 &&
    missing.length === 0 &&
    acknowledged.length >= BEFORE_KILL &&
    unaudited.length === 0 &&
    readers.answered.length > 0
  );
}

const base = {
  NODE_ENV: 'production',
  // The embedded run: production on PGlite, allowed.
  ALLOW_EMBEDDED_IN_PRODUCTION: 'true',
  JWT_SECRET: randomBytes(32).toString('base64url'),
  PII_KEY: randomBytes(32).toString('base64'),
  BASE_URL: 'http://127.0.0.1',
  LOG_LEVEL: 'error',
  // The receiver listens on loopback.
  WEBHOOK_ALLOW_PRIVATE: 'true',
  BCRYPT_COST: '4',
  RATE_LIMIT_MAX: '1000000',
  PUBLIC_RATE_LIMIT_MAX: '1000000',
  AUTH_RATE_LIMIT_MAX: '1000000',
};

let ok = true;
const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-crash-'));
try {
  ok = (await check('embedded PGlite', { ...base, DATA_DIR: dataDir, DATABASE_URL: '' })) && ok;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const testUrl = process.env.TEST_DATABASE_URL;
if (testUrl) {
  const name = `mel_crash_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new URL(testUrl);
  admin.pathname = '/postgres';
  const maintenance = new pg.Client({ connectionString: admin.toString() });
  await maintenance.connect();
  await maintenance.query(`CREATE DATABASE ${name}`);
  const own = new URL(testUrl);
  own.pathname = `/${name}`;
  const pgDir = mkdtempSync(path.join(tmpdir(), 'mel-crash-'));
  try {
    ok = (await check('PostgreSQL', { ...base, DATA_DIR: pgDir, DATABASE_URL: own.toString() })) && ok;
  } finally {
    await maintenance.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await maintenance.end();
    rmSync(pgDir, { recursive: true, force: true });
  }
}
process.exit(ok ? 0 : 1);
