/**
 * `npm run admin:create`, as deployed: the compiled script in a process of its own, against a database the
 * test then serves with the app, on PostgreSQL (TEST_DATABASE_URL) or on an embedded database on disk.
 * What it says to each command line and outcome is tested in this process: test/admin-command.test.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, runEntry } from './helpers/commands.js';
import { migratedDataDir } from './helpers/embedded.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { users } from '../src/modules/auth/auth.tables.js';
import { buildTestApp, maintenanceQuery, TEST_PII_KEY } from './helpers/app.js';
import { uniqueCode } from './helpers/factories.js';
import { call, TEST_APP_URL, TIMESTAMP } from './helpers/http.js';

const testUrl = process.env.TEST_DATABASE_URL;
const LINK = new RegExp(`^${TEST_APP_URL}/reset-password\\?token=([\\w-]{43})$`, 'm');
const PASSWORD = 'a long chosen password';

let dataDir: string;
let url: string | null = null;

beforeAll(async () => {
  // Built once here, so the runs below do not each rebuild (unless a source changes meanwhile).
  await buildOnce();
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
const adminCreate = (...args: string[]) =>
  runEntry('admin-create', args, {
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    PII_KEY: TEST_PII_KEY,
    APP_URL: TEST_APP_URL,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    // A production service on the embedded database has said so: the command runs beside it.
    ...(url ? { DATABASE_URL: url } : { ALLOW_EMBEDDED_IN_PRODUCTION: 'true' }),
  });

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
  });

  it(
    'makes the organization and its org_admin; the printed link sets the password, and they sign in',
    { timeout: 120_000 },
    async () => {
      // On the embedded database, once the service above has closed it.
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
            showQualityNotes: false,
            ageBands: ['0-17', '18-35', '36-59', '60+', 'unknown'],
            defaultLocale: 'en',
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

  it('refuses a bad command line with exit 2 before it opens any database', async () => {
    const run = await adminCreate('--email', 'x@ngo.org');
    expect([run.code, run.out, run.err.split('\n')[0]]).toEqual([
      2,
      '',
      'admin:create: --org-name is required',
    ]);
  });
});
