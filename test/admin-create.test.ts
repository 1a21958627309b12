/**
 * `npm run admin:create`, as deployed: the compiled script in a process of its own, against a database the
 * test then serves with the app, on PostgreSQL (TEST_DATABASE_URL) or on an embedded database on disk.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDataDir } from './helpers/embedded.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { users } from '../src/modules/auth/auth.tables.js';
import { buildTestApp, maintenanceQuery, TEST_PII_KEY } from './helpers/app.js';
import { registerUser, uniqueCode, uniqueEmail } from './helpers/factories.js';
import { call, TEST_APP_URL, TIMESTAMP } from './helpers/http.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testUrl = process.env.TEST_DATABASE_URL;
const LINK = new RegExp(`^${TEST_APP_URL}/reset-password\\?token=([\\w-]{43})$`, 'm');
const PASSWORD = 'a long chosen password';

let dataDir: string;
let url: string | null = null;

beforeAll(async () => {
  // Built once here, so the runs below do not each rebuild (unless a source changes meanwhile).
  await promisify(execFile)(process.execPath, [path.join(root, 'scripts/build.mjs')]);
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-admin-create-'));
  if (testUrl) {
    const name = `mel_adm_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await maintenanceQuery(testUrl, `CREATE DATABASE ${name} TEMPLATE ${new URL(testUrl).pathname.slice(1)}`);
    const own = new URL(testUrl);
    own.pathname = `/${name}`;
    url = own.toString();
  } else {
    await migratedDataDir(dataDir);
  }
}, 120_000);
afterAll(async () => {
  if (url && testUrl)
    await maintenanceQuery(testUrl, `DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
});

/** The command as an operator runs it, with the service's production environment. */
function adminCreate(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', path.join(root, 'scripts/start.mjs'), 'admin-create', ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_ENV: 'production',
          JWT_SECRET: randomBytes(32).toString('base64url'),
          PII_KEY: TEST_PII_KEY,
          APP_URL: TEST_APP_URL,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'error',
          // A production service on the embedded database has said so: the command runs beside it.
          ...(url ? { DATABASE_URL: url } : { ALLOW_EMBEDDED_IN_PRODUCTION: 'true' }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/** The service on the command's database, for `work`; closed after (the embedded one takes one process). */
async function withService<T>(work: (app: FastifyInstance, database: Database) => Promise<T>): Promise<T> {
  const database = openDatabase({ databaseUrl: url, dataDir, poolSize: 5 });
  await database.migrate();
  const t = await buildTestApp({}, { database, worker: false });
  try {
    return await work(t.app, database);
  } finally {
    await t.close();
    await database.close();
  }
}

const tokenIn = (out: string) => {
  const token = LINK.exec(out)?.[1];
  if (!token) throw new Error(`no link in:\n${out}`);
  return token;
};

describe('npm run admin:create', () => {
  it(
    'makes the organization and its org_admin; the printed link sets the password, and they sign in',
    { timeout: 120_000 },
    async () => {
      const run = await adminCreate('--email', ' Ada.Admin@NGO.org ', '--org-name', 'Clean Water Turkana');
      expect([run.code, run.err]).toEqual([0, '']);
      expect(run.out).toMatch(
        /^admin:create: created organization "Clean Water Turkana" \(code clean-water-turkana, id [0-9a-f-]{36}\) with ada\.admin@ngo\.org as its org_admin \(a new account\)\.\nSend this link to ada\.admin@ngo\.org to set their password; it works once, within 24 hours \(run this again for a new one\):\n/,
      );
      const token = tokenIn(run.out);

      await withService(async (app, database) => {
        const [row] = await database.db.select().from(users).where(eq(users.email, 'ada.admin@ngo.org'));
        expect([row?.passwordHash, row?.firstName, row?.lastName]).toEqual([null, 'ada.admin', '']);
        const reset = await call(app, 'POST', '/auth/reset-password', {
          body: { token, password: PASSWORD },
        });
        expect(reset.status).toBe(204);
        const login = await call(app, 'POST', '/auth/login', {
          body: { email: 'ada.admin@ngo.org', password: PASSWORD },
        });
        expect(login.status).toBe(200);
        const token2 = String(login.response.cookies.find((c) => c.name === 'jwt')?.value);
        const mine = await call(app, 'GET', '/orgs', { as: { token: token2 } });
        expect(mine.body).toEqual([
          {
            id: expect.any(String),
            name: 'Clean Water Turkana',
            code: 'clean-water-turkana',
            logoUrl: null,
            iatiRef: null,
            iatiOrgType: '21',
            reminderDaysBefore: [7, 1],
            overdueReminder: true,
            separateApproval: false,
            createdAt: expect.stringMatching(TIMESTAMP),
            role: 'org_admin',
          },
        ]);
        // The link works once; following it proved the address.
        const again = await call(app, 'POST', '/auth/reset-password', {
          body: { token, password: PASSWORD },
        });
        expect(again.status).toBe(400);
        const me = await call(app, 'GET', '/auth/me', { as: { token: token2 } });
        expect(me.body.emailVerified).toBe(true);
      });
    },
  );

  it('run again, says the organization exists with them as org_admin, exits 0 and changes nothing', async () => {
    const run = await adminCreate('--email', 'ada.admin@ngo.org', '--org-name', 'Clean Water Turkana');
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toMatch(
      /^admin:create: organization "Clean Water Turkana" \(code clean-water-turkana, id [0-9a-f-]{36}\) already exists with ada\.admin@ngo\.org as its org_admin: nothing was created\.\nada\.admin@ngo\.org signs in with their password \(forgot-password if it is lost\)\.\n$/,
    );
  });

  it('refuses a code whose organization another person administers: exit 1, no account made', async () => {
    const run = await adminCreate(
      '--email',
      'bob@ngo.org',
      '--org-code',
      'clean-water-turkana',
      '--org-name',
      'Other',
    );
    expect([run.code, run.out]).toEqual([1, '']);
    expect(run.err).toMatch(
      /^admin:create: the code clean-water-turkana belongs to organization "Clean Water Turkana" \(code clean-water-turkana, id [0-9a-f-]{36}\), of which bob@ngo\.org is no org_admin: nothing was changed\. Choose another code with --org-code, or ask its org admins to invite them\.\n$/,
    );
    await withService(async (_app, database) => {
      expect(await database.db.select().from(users).where(eq(users.email, 'bob@ngo.org'))).toEqual([]);
    });
  });

  it('makes an existing account org_admin of a new organization, with no link when it has a password', async () => {
    const existing = await withService((app) => registerUser(app, { email: uniqueEmail('existing') }));
    const code = uniqueCode('partner');
    const run = await adminCreate(
      ...['--email', existing.email, '--org-name', 'Partner NGO', '--org-code', code],
    );
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toContain(`with ${existing.email} as its org_admin (their existing account).\n`);
    expect(run.out).toContain(`${existing.email} signs in with their password`);
    expect(run.out).not.toContain('reset-password');
    await withService(async (app) => {
      const mine = await call(app, 'GET', '/orgs', { as: existing });
      expect(mine.body.map((o: { code: string; role: string }) => [o.code, o.role])).toEqual([
        [code, 'org_admin'],
      ]);
    });
  });

  it('prints a new link while the password is not set, and names the person as asked', async () => {
    const code = uniqueCode('field');
    const args = ['--email', 'lead@ngo.org', '--org-name', 'Field Office', '--org-code', code];
    const first = await adminCreate(...args, '--first-name', 'Lea', '--last-name', 'Lead');
    expect(first.code).toBe(0);
    const second = await adminCreate(...args);
    expect([second.code, second.err]).toEqual([0, '']);
    expect(second.out).toContain('already exists with lead@ngo.org as its org_admin: nothing was created.');
    const [one, two] = [tokenIn(first.out), tokenIn(second.out)];
    expect(two).not.toBe(one);
    await withService(async (app, database) => {
      const [row] = await database.db.select().from(users).where(eq(users.email, 'lead@ngo.org'));
      expect([row?.firstName, row?.lastName]).toEqual(['Lea', 'Lead']);
      expect(
        (await call(app, 'POST', '/auth/reset-password', { body: { token: two, password: PASSWORD } }))
          .status,
      ).toBe(204);
    });
  });

  it('refuses a bad command line with exit 2, naming every problem, and takes no password', async () => {
    const none = await adminCreate();
    expect([none.code, none.out]).toEqual([2, '']);
    expect(none.err).toMatch(
      /^admin:create: --email is required\n {2}--org-name is required\nusage: npm run admin:create/,
    );

    const password = await adminCreate('--email', 'x@ngo.org', '--org-name', 'X NGO', '--password', 'secret');
    expect(password.code).toBe(2);
    expect(password.err).toMatch(/^admin:create: Unknown option '--password'/);

    const bad = await adminCreate('--email', 'not-an-address', '--org-name', 'علم', '--last-name', 'a\tb');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^admin:create: --email is not an email address: not-an-address\n {2}--org-name gives no usable code \(""\): give --org-code\n {2}--last-name must not contain control characters/,
    );
    const code = await adminCreate('--email', 'x@ngo.org', '--org-name', 'X NGO', '--org-code=Bad Code');
    expect([code.code, code.err.split('\n')[0]]).toEqual([
      2,
      'admin:create: --org-code must be 2 to 32 lower-case letters, digits or dashes, not starting with a dash',
    ]);
  });

  it('does not open an embedded database another process has open', { timeout: 60_000 }, async () => {
    const pidFile = path.join(dataDir, 'pglite', 'postmaster.pid');
    if (url) {
      // On PostgreSQL the embedded directory plays no part: a stale file there stops nothing.
      mkdirSync(path.dirname(pidFile), { recursive: true });
      writeFileSync(pidFile, '-42\n');
      const run = await adminCreate(
        '--email',
        'pg@ngo.org',
        '--org-name',
        'Pg NGO',
        '--org-code',
        uniqueCode(),
      );
      expect([run.code, run.err]).toEqual([0, '']);
      rmSync(pidFile);
      return;
    }
    await withService(async () => {
      const run = await adminCreate('--email', 'busy@ngo.org', '--org-name', 'Busy NGO');
      expect([run.code, run.out]).toEqual([1, '']);
      expect(run.err).toBe(
        `admin:create: the embedded database in ${path.join(dataDir, 'pglite')} is open in another process, ` +
          'the service most likely. It takes one process at a time: stop the service, run this again, then ' +
          'start it. (If no process has it open, one was killed: start the service and stop it once, which ' +
          'closes it cleanly.)\n',
      );
    });
    const run = await adminCreate('--email', 'busy@ngo.org', '--org-name', 'Busy NGO');
    expect([run.code, run.err]).toEqual([0, '']);
  });
});
