/**
 * `npm run admin:create`'s command line and outcomes, in this process on the suite's database (the
 * command's own process, its exit codes and the embedded database's lock: test/admin-create.test.ts).
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { readAdministratorRequest, reportOutcome, type CommandReport } from '../src/admin-command.js';
import { users } from '../src/modules/auth/auth.tables.js';
import { createAdministrator } from '../src/modules/orgs/index.js';
import { registerUser, uniqueCode, uniqueEmail } from './helpers/factories.js';
import { call } from './helpers/http.js';
import { useSuite } from './helpers/suite.js';

const { t } = useSuite();
const PASSWORD = 'a long chosen password';

/** The command as its process runs it, on the suite's database: what it would print, and its exit code. */
async function adminCreate(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const read = readAdministratorRequest(args);
  const report: CommandReport =
    'report' in read
      ? read.report
      : reportOutcome(read.request, await createAdministrator(t.database.db, t.config.appUrl, read.request));
  const text = (lines: string[]) => lines.map((line) => `${line}\n`).join('');
  return { code: report.exitCode, out: text(report.out), err: text(report.err) };
}

const tokenIn = (out: string) => {
  const token = /\/reset-password\?token=([\w-]{43})$/m.exec(out)?.[1];
  if (!token) throw new Error(`no link in:\n${out}`);
  return token;
};

describe('admin:create, what it does and says', () => {
  it('run again, says the organization exists with them as org_admin, exits 0 and changes nothing', async () => {
    const email = uniqueEmail('again');
    const code = uniqueCode('again');
    const first = await adminCreate('--email', email, '--org-name', 'Again NGO', '--org-code', code);
    expect([first.code, first.err]).toEqual([0, '']);
    const run = await adminCreate('--email', email, '--org-name', 'Again NGO', '--org-code', code);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out.split('\n')[0]).toMatch(
      new RegExp(
        `^admin:create: organization "Again NGO" \\(code ${code}, id [0-9a-f-]{36}\\) already exists with ` +
          `${email.replaceAll('.', '\\.')} as its org_admin: nothing was created\\.$`,
      ),
    );
    // The password is not set yet: a new link, and the first one still works until either is used.
    expect(tokenIn(run.out)).not.toBe(tokenIn(first.out));
  });

  it('refuses a code whose organization another person administers: exit 1, no account made', async () => {
    const code = uniqueCode('taken');
    expect(
      (await adminCreate('--email', uniqueEmail('owner'), '--org-name', 'Owner', '--org-code', code)).code,
    ).toBe(0);
    const bob = uniqueEmail('bob');
    const run = await adminCreate('--email', bob, '--org-code', code, '--org-name', 'Other');
    expect([run.code, run.out]).toEqual([1, '']);
    expect(run.err).toMatch(
      new RegExp(
        `^admin:create: the code ${code} belongs to organization "Owner" \\(code ${code}, id [0-9a-f-]{36}\\), ` +
          `of which ${bob.replaceAll('.', '\\.')} is no org_admin: nothing was changed\\. Choose another code ` +
          'with --org-code, or ask its org admins to invite them\\.\\n$',
      ),
    );
    expect(await t.database.db.select().from(users).where(eq(users.email, bob))).toEqual([]);
  });

  it('makes an existing account org_admin of a new organization, with no link when it has a password', async () => {
    const existing = await registerUser(t.app, { email: uniqueEmail('existing') });
    const code = uniqueCode('partner');
    const run = await adminCreate(
      ...['--email', existing.email, '--org-name', 'Partner NGO', '--org-code', code],
    );
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.out).toContain(`with ${existing.email} as its org_admin (their existing account).\n`);
    expect(run.out).toContain(`${existing.email} signs in with their password`);
    expect(run.out).not.toContain('reset-password');
    const mine = await call(t.app, 'GET', '/orgs', { as: existing });
    expect(mine.body.map((o: { code: string; role: string }) => [o.code, o.role])).toEqual([
      [code, 'org_admin'],
    ]);
  });

  it('names the person as asked, and the later link sets the password', async () => {
    const email = uniqueEmail('lead');
    const args = ['--email', email, '--org-name', 'Field Office', '--org-code', uniqueCode('field')];
    const first = await adminCreate(...args, '--first-name', 'Lea', '--last-name', 'Lead');
    expect(first.code).toBe(0);
    const second = await adminCreate(...args);
    expect([second.code, second.err]).toEqual([0, '']);
    const [row] = await t.database.db.select().from(users).where(eq(users.email, email));
    expect([row?.firstName, row?.lastName, row?.passwordHash]).toEqual(['Lea', 'Lead', null]);
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { token: tokenIn(second.out), password: PASSWORD },
    });
    expect(reset.status).toBe(204);
    const login = await call(t.app, 'POST', '/auth/login', { body: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
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
    const help = await adminCreate('--help');
    expect([help.code, help.err, help.out.split('\n')[0]]).toEqual([
      0,
      '',
      'usage: npm run admin:create -- --email <address> --org-name <name> [--org-code <code>]',
    ]);
  });

  it('makes an organization code from the name, accents dropped', async () => {
    const read = readAdministratorRequest(['--email', 'a@ngo.org', '--org-name', '  Éau Propre — Niamey! ']);
    expect(read).toEqual({
      request: {
        email: 'a@ngo.org',
        firstName: 'a',
        lastName: '',
        orgName: 'Éau Propre — Niamey!',
        orgCode: 'eau-propre-niamey',
      },
    });
  });
});
