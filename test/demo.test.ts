/**
 * `npm run demo` against a real, listening app: what it prints signs in and opens, and a second run
 * finds the organization and changes nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoError, Service } from '../scripts/demo-client.js';
import { runDemo, type DemoOptions } from '../scripts/demo.js';
import { rowsOf } from '../src/db/client.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { TEST_APP_URL } from './helpers/http.js';

let t: TestApp;
let url: string;
beforeAll(async () => {
  // The file's own app (a shared one that listened is closed for good): its outbox worker writes the
  // invitation emails under its DATA_DIR/mail, where the demo reads them.
  t = await buildTestApp({}, { worker: { pollIntervalMs: 50, retryBaseMs: 100 } });
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/** Runs the demo as `npm run demo -- --url <the app>` would, with what it printed. */
async function demo(options: Partial<DemoOptions> = {}) {
  const lines: string[] = [];
  const result = await runDemo({
    url,
    dataDir: t.config.dataDir,
    print: (line) => lines.push(line),
    ...options,
  });
  return { result, output: lines.join('\n') };
}

/** The accounts as printed: role label, email, password. */
function printedAccounts(output: string) {
  return [...output.matchAll(/^ {2}(org admin|M&E officer|reporter|viewer) +(\S+@\S+) +(\S+)$/gm)].map(
    ([, label, email, password]) => ({ label, email: email!, password: password! }),
  );
}

const printedLink = (output: string, name: string) =>
  new RegExp(`^${name} \\([^)]*\\): +(\\S+)$`, 'm').exec(output)?.[1];

/** The app's answer to a link the service made under APP_URL (the test app's is not this address). */
const open = (link: string) => fetch(`${url}${link.slice(TEST_APP_URL.length)}`);

async function post(path: string, body: unknown, token?: string, base = url) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get(path: string, token: string, base = url) {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** Rows of every table of the app's database. */
async function rowCounts(): Promise<Record<string, number>> {
  const { db } = t.database;
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`),
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = rowsOf<{ n: string | number }>(
      await db.execute(sql.raw(`SELECT count(*) AS n FROM "${name}"`)),
    );
    counts[name] = Number(row!.n);
  }
  return counts;
}

describe('npm run demo', () => {
  it('refuses an address that is not this machine unless --yes is given, before sending anything', async () => {
    await expect(demo({ url: 'http://mel.example.org' })).rejects.toThrow(DemoError);
    await expect(demo({ url: 'http://mel.example.org' })).rejects.toThrow(/is not this machine.*--yes/);
  });

  it('fills the service with one organization, prints accounts and links that work, and runs again changing nothing', async () => {
    const first = await demo();
    expect(first.result.created).toBe(true);
    expect(first.output).toContain('"Turkana WASH Partners (demo)" (code turkana-wash-demo) is ready');
    expect(first.output).toMatch(/demo passwords, for a service on your own machine only/);
    // Within the service's default general rate limit (100 a minute), so a fresh `npm start` never makes it wait.
    expect(first.result.requests).toBeLessThan(100);

    const accounts = printedAccounts(first.output);
    expect(accounts.map((a) => a.label)).toEqual(['org admin', 'M&E officer', 'reporter', 'viewer']);
    const roles = {
      'org admin': 'org_admin',
      'M&E officer': 'me_officer',
      reporter: 'reporter',
      viewer: 'viewer',
    };
    let adminToken = '';
    for (const account of accounts) {
      const signedIn = await post('/auth/token', { email: account.email, password: account.password });
      expect(signedIn.status).toBe(200);
      const token = signedIn.body.accessToken as string;
      const me = await get('/auth/me', token);
      expect(me.status).toBe(200);
      expect((me.body as { memberships: unknown[] }).memberships).toEqual([
        expect.objectContaining({
          organization: expect.objectContaining({ code: 'turkana-wash-demo' }),
          role: roles[account.label as keyof typeof roles],
        }),
      ]);
      if (account.label === 'org admin') adminToken = token;
    }

    const formLink = printedLink(first.output, 'Public form');
    const shareLink = printedLink(first.output, 'Shared report');
    expect(formLink).toBe(first.result.formUrl);
    expect(shareLink).toBe(first.result.shareUrl);
    expect(formLink).toMatch(new RegExp(`^${TEST_APP_URL}/f/[\\w-]+$`));
    expect(shareLink).toMatch(new RegExp(`^${TEST_APP_URL}/r/[\\w-]+$`));
    const formPage = await open(formLink!);
    expect(formPage.status).toBe(200);
    expect(formPage.headers.get('content-type')).toMatch(/text\/html/);
    expect(await formPage.text()).toContain('Household WASH visit');
    const sharePage = await open(shareLink!);
    expect(sharePage.status).toBe(200);
    expect(await sharePage.text()).toContain('Clean Water for Turkana: progress');

    // The workflow's states are all there: approved, awaiting review, returned, and counted from the form.
    const orgId = first.result.organization.id;
    const statuses: string[] = [];
    const projects = (await get(`/orgs/${orgId}/programs`, adminToken)).body as Array<{ id: string }>;
    const program = (await get(`/orgs/${orgId}/programs/${projects[0]!.id}`, adminToken)).body as {
      projects: Array<{ id: string }>;
    };
    expect(program.projects).toHaveLength(2);
    for (const project of program.projects) {
      const reports = await get(`/orgs/${orgId}/projects/${project.id}/indicator-reports`, adminToken);
      expect(reports.status).toBe(200);
      statuses.push(...(reports.body as Array<{ status: string }>).map((r) => r.status));
    }
    expect(statuses.sort()).toEqual([
      ...Array<string>(4).fill('approved'),
      'draft',
      'rejected',
      'submitted',
      'submitted',
    ]);

    const before = await rowCounts();
    expect(before).toMatchObject({ organizations: 1, org_members: 4, programs: 1, projects: 2 });
    const second = await demo();
    expect(second.result.created).toBe(false);
    expect(second.output).toContain('is already there: nothing was changed');
    expect(second.result).toMatchObject({
      organization: first.result.organization,
      accounts: first.result.accounts,
      formUrl: first.result.formUrl,
      shareUrl: first.result.shareUrl,
    });
    expect(printedAccounts(second.output)).toEqual(accounts);
    expect(await rowCounts()).toEqual(before);
  });

  it('goes on with the org admin alone when the invitation emails cannot be read, and says so', async () => {
    // No outbox worker: the service writes no email at all, as when it sends by SMTP.
    const quiet = await buildTestApp({}, { worker: false });
    try {
      const quietUrl = await quiet.app.listen({ port: 0, host: '127.0.0.1' });
      const { result, output } = await demo({
        url: quietUrl,
        dataDir: quiet.config.dataDir,
        mailWaitMs: 300,
      });
      expect(result.created).toBe(true);
      expect(output).toContain('No invitation email appeared under');
      expect(output).toContain('Going on with the org admin alone');
      expect(printedAccounts(output).map((a) => a.label)).toEqual(['org admin']);
      const admin = printedAccounts(output)[0]!;
      const signedIn = await post(
        '/auth/token',
        { email: admin.email, password: admin.password },
        undefined,
        quietUrl,
      );
      expect(signedIn.status).toBe(200);
      const token = signedIn.body.accessToken as string;
      const orgId = result.organization.id;
      // The invitation nobody could follow was revoked.
      const open = await get(`/orgs/${orgId}/invitations`, token, quietUrl);
      expect(open).toEqual({ status: 200, body: [] });
      const members = await get(`/orgs/${orgId}/members`, token, quietUrl);
      expect((members.body as Array<{ email: string }>).map((m) => m.email)).toEqual([admin.email]);
      const share = await fetch(`${quietUrl}${result.shareUrl.slice(TEST_APP_URL.length)}`);
      expect(share.status).toBe(200);
      // Read to the end: a response left unread keeps its connection busy, and closing the app waits for it.
      expect(await share.text()).toContain('Clean Water for Turkana: progress');
    } finally {
      await quiet.close();
    }
  });

  it("waits as long as a 429's Retry-After asks, then sends the request again", async () => {
    let calls = 0;
    const peer = createServer((_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
      else res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(calls === 1 ? { message: 'Too many requests, retry in 1 seconds' } : { ok: true }),
      );
    });
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    try {
      const lines: string[] = [];
      const { port } = peer.address() as AddressInfo;
      const service = new Service(`http://127.0.0.1:${port}`, (line) => lines.push(line));
      const started = Date.now();
      expect(await service.send('GET', '/orgs')).toEqual({ status: 200, body: { ok: true } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(calls).toBe(2);
      expect(lines).toEqual(["  (the service's rate limit is reached: waiting 1 s, as it asks)"]);
    } finally {
      peer.closeAllConnections();
      await new Promise((resolve) => peer.close(resolve));
    }
  });
});
