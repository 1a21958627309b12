/**
 * `npm run test:crash` (issue 10, suite 5): the real server as a child process, a stream of writes from
 * several clients, SIGKILL in the middle, a restart on the same data, and every write that got a 2xx
 * read back intact. On embedded PGlite always; on PostgreSQL too when TEST_DATABASE_URL is set (a
 * database of its own is created and dropped). Prints what it checked; exits 1 on any loss.
 */
import { randomBytes, randomUUID } from 'node:crypto';
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

/** Writers create donors until the server dies; returns every donor the server acknowledged. */
async function writeUntilKilled(server: Server, orgId: string, auth: Record<string, string>) {
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
        killed = server.kill();
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
  const acknowledged = await writeUntilKilled(first, orgId, auth);
  const second = await startServer('service', entry, env);
  const missing: string[] = [];
  try {
    for (const written of acknowledged) {
      const res = await fetch(`${second.url}/orgs/${orgId}/donors/${written.id}`, { headers: auth });
      const body = res.status === 200 ? await json(res) : null;
      // Intact: exactly what the acknowledgement showed.
      if (JSON.stringify(body) !== JSON.stringify(written)) missing.push(`${written.id} (${res.status})`);
    }
  } finally {
    await second.stop();
  }
  console.log(
    `${label}: ${acknowledged.length} writes acknowledged before SIGKILL, ${acknowledged.length - missing.length} read back intact` +
      (missing.length ? `; MISSING ${missing.slice(0, 5).join(', ')}` : ''),
  );
  return missing.length === 0 && acknowledged.length >= BEFORE_KILL;
}

const base = {
  NODE_ENV: 'production',
  JWT_SECRET: randomBytes(32).toString('base64url'),
  BASE_URL: 'http://127.0.0.1',
  LOG_LEVEL: 'error',
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
