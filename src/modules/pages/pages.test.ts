import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import { answers, postForm, publishedForm, submitUrl } from '../../../test/helpers/forms.js';
import { call, TEST_APP_URL } from '../../../test/helpers/http.js';
import {
  act,
  indicatorCode,
  linkIndicator,
  reportsUrl,
  type ReportJson,
} from '../../../test/helpers/indicators.js';
import { emailsTo, invitedToken } from '../../../test/helpers/invitations.js';
import { linkIn } from '../../../test/helpers/smtp.js';
import { donorReportScene } from '../../../test/helpers/reports.js';
import { forms } from '../forms/forms.tables.js';
import { organizations } from '../orgs/orgs.tables.js';
import { reports } from '../reports/reports.tables.js';

let t: MailTestApp;
let team: Team;
beforeAll(async () => {
  t = await buildTestAppWithMail({ PUBLIC_RATE_LIMIT_MAX: '5000' });
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const XSS = '<script>alert("x")</script>';

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { accept: BROWSER, ...headers } });

function expectPage(res: Awaited<ReturnType<typeof get>>, status: number) {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body.startsWith('<!doctype html>')).toBe(true);
}

const heading = (body: string) => /<h1(?: dir="auto")?>([\s\S]*?)<\/h1>/.exec(body)?.[1]?.trim();
const scriptsOf = (body: string) => [...body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the form page', () => {
  it('renders every field type, escaping what the form’s editors wrote', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.admin, team.org.id, {
      projectId: project.id,
      title: `Survey ${XSS}`,
      description: `About ${XSS}`,
      fields: [
        { type: 'text', label: `Name ${XSS}`, key: 'name', required: true },
        { type: 'textarea', label: 'Story', key: 'story' },
        { type: 'number', label: 'Size', key: 'size' },
        { type: 'select', label: 'Source', key: 'source', options: ['"><img src=x>', 'well'] },
        { type: 'multi_select', label: 'Uses', key: 'uses', options: ['a&b', 'c'] },
        { type: 'date', label: 'Day', key: 'day' },
        { type: 'boolean', label: 'Treated', key: 'treated' },
        { type: 'location', label: 'Where', key: 'where', required: true },
        { type: 'file', label: 'Photo', key: 'photo', showIf: { field: 'source', equals: '"><img src=x>' } },
      ],
    });
    const res = await get(`/f/${form.publicToken}`);
    expectPage(res, 200);
    expect(res.body).not.toContain(XSS);
    expect(res.body).not.toContain('<img src=x>');
    expect(res.body).toContain('<title>Survey &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</title>');
    expect(res.body).toContain('Name &lt;script&gt;');
    expect(res.body).toContain('<option value="&quot;&gt;&lt;img src=x&gt;">');
    expect(res.body).toContain('value="a&amp;b"');
    expect(res.body).toContain('data-show-equals="&quot;\\&quot;&gt;&lt;img src=x&gt;&quot;"');
    for (const control of [
      'input type="text" id="f-name"',
      'textarea id="f-story"',
      'inputmode="decimal" id="f-size"',
      'select id="f-source"',
      'type="checkbox" name="uses"',
      'input type="date" id="f-day"',
      'type="radio" name="treated" value="true"',
      'data-locate',
      'input type="file" id="f-photo"',
    ]) {
      expect(res.body).toContain(control);
    }
    expect(res.body).toContain(`data-submit-url="/forms/public/${form.publicToken}/submit"`);
    // Until form.js takes over, the browser must not send the answers itself (a GET, answers in the URL).
    expect(res.body).toMatch(/<button type="submit" disabled data-ready>Send<\/button>/);
  });

  it('is a 404 page for an unknown or unpublished form and a 410 page once closed', async () => {
    expect(heading((await get('/f/not-a-token')).body)).toBe('This form is not available');
    expectPage(await get('/f/not-a-token'), 404);
    const project = await createProject(t.database.db, team.org.id);
    const draft = await postForm(t.app, team.admin, team.org.id, { projectId: project.id });
    expectPage(await get(`/f/${draft.publicToken}`), 404);

    const form = await publishedForm(t.app, team.admin, team.org.id, { projectId: project.id });
    await t.database.db
      .update(forms)
      .set({ closesAt: new Date(Date.now() - 1000) })
      .where(eq(forms.id, form.id));
    const closed = await get(`/f/${form.publicToken}`);
    expectPage(closed, 410);
    expect(heading(closed.body)).toBe('This form is closed');
  });
});

describe('the shared report page', () => {
  const scene = donorReportScene(() => ({ t, team }));

  it('renders the report with every untrusted text escaped', async () => {
    await t.database.db
      .update(organizations)
      .set({ logoUrl: 'https://example.org/logo.png?a=1&b="2"' })
      .where(eq(organizations.id, team.org.id));
    const { project } = await scene.simpleProject(`Water ${XSS}`);
    const report = await scene.reportOf(project.id, { title: `Report ${XSS}` });
    const narrated = await call(t.app, 'PATCH', `/orgs/${team.org.id}/reports/${report.id}`, {
      as: team.officer,
      body: { sections: { executiveSummary: `First ${XSS}\n\nSecond`, recommendations: 'Keep going' } },
    });
    expect(narrated.status).toBe(200);
    const { shareToken } = await scene.share(report.id);

    const res = await get(`/r/${shareToken}`);
    expectPage(res, 200);
    expect(res.body).not.toContain(XSS);
    expect(heading(res.body)).toBe('Report &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(res.body).toContain('<p class="prose" dir="auto">First &lt;script&gt;');
    expect(res.body).toContain('<p class="prose" dir="auto">Second</p>');
    expect(res.body).toContain('src="https://example.org/logo.png?a=1&amp;b=&quot;2&quot;"');
    expect(res.body).toMatch(/<progress\s+class="band-(on_track|at_risk|off_track)"/);
    expect(res.body).toContain('<h2>Recommendations</h2>');
    // Narratives left empty get no heading.
    expect(res.body).not.toContain('Challenges and lessons learned');
  });

  it('says per indicator how many submissions it counts and who approved it, and a formula’s inputs', async () => {
    // 40 typed in Q1 and approved; 2 submissions of a count form in Q2, submitted and approved.
    const { project, indicator } = await scene.simpleProject();
    const q2 = await scene.quarter(project.id, 2);
    const form = await publishedForm(t.app, team.officer, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: q2.id,
    });
    for (let i = 0; i < 2; i++) {
      const sent = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
      expect(sent.status).toBe(201);
    }
    const [counted] = (
      await call(t.app, 'GET', `${reportsUrl(team.org.id, project.id)}?periodId=${q2.id}`, { as: team.admin })
    ).body as ReportJson[];
    await act(t.app, team.officer, team.org.id, counted!.id, 'submit');
    const approved = await act(t.app, team.admin, team.org.id, counted!.id, 'approve');
    const doubled = await scene.newFormula(indicatorCode('F'), `${indicator.code} * 2`);
    await linkIndicator(t.app, team.officer, team.org.id, project.id, doubled.id);
    const report = await scene.reportOf(project.id, { startDate: '2026-01-01', endDate: '2026-06-30' });
    const { shareToken } = await scene.share(report.id);

    const page = await get(`/r/${shareToken}`);
    expectPage(page, 200);
    // The latest approval is Q2's, dated as the page dates everything.
    const day = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date((approved as ReportJson & { reviewedAt: string }).reviewedAt));
    const admin = `${team.admin.firstName} ${team.admin.lastName}`;
    expect(
      [...page.body.matchAll(/<span class="hint" data-source>([^<]*)<\/span>/g)].map((m) => m[1]),
    ).toEqual([`2 submissions, approved by ${admin} on ${day}`]);
    expect(
      [...page.body.matchAll(/<span class="hint" data-inputs>([^<]*)<\/span>/g)].map((m) => m[1]),
    ).toEqual([`Inputs: ${indicator.code} = 42`]);

    // A report stored before provenance was kept still renders, without those lines.
    const [row] = await t.database.db.select().from(reports).where(eq(reports.id, report.id));
    const indicators = row!.content.indicators.map(({ provenance: _p, inputs: _i, ...entry }) => entry);
    await t.database.db
      .update(reports)
      .set({ content: { ...row!.content, indicators } })
      .where(eq(reports.id, report.id));
    const old = await get(`/r/${shareToken}`);
    expectPage(old, 200);
    expect(old.body).toContain(`<span class="code">${doubled.code}</span>`);
    expect(old.body).not.toMatch(/data-source|data-inputs/);
  });

  it('is a 404 page once the link is revoked or expired, or for any other token', async () => {
    const { project } = await scene.simpleProject();
    const report = await scene.reportOf(project.id);
    const { shareToken } = await scene.share(report.id);
    expectPage(await get(`/r/${shareToken}`), 200);
    await t.database.db
      .update(reports)
      .set({ shareExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(reports.id, report.id));
    const expired = await get(`/r/${shareToken}`);
    expectPage(expired, 404);
    expect(heading(expired.body)).toBe('This report is no longer shared');

    const again = await scene.share(report.id);
    const revoked = await call(t.app, 'DELETE', `/orgs/${team.org.id}/reports/${report.id}/share`, {
      as: team.officer,
    });
    expect(revoked.status).toBe(204);
    expectPage(await get(`/r/${again.shareToken}`), 404);
    expectPage(await get('/r/00000000-0000-4000-8000-000000000000'), 404);
    expectPage(await get('/r/anything'), 404);
  });
});

describe('the invitation page', () => {
  it('is served to browsers; API clients and */* keep the JSON of the same path', async () => {
    const renamed = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { name: `Relief & ${XSS}` },
    });
    expect(renamed.status).toBe(200);
    const { token } = await invitedToken(
      t.app,
      t.smtp,
      team.admin,
      team.org.id,
      'guest@example.org',
      'me_officer',
    );

    const page = await get(`/invitations/${token}`);
    expectPage(page, 200);
    expect(heading(page.body)).toBe('Join Relief &amp; &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.body).toContain('You are invited as M&amp;E officer');
    expect(page.body).toContain(`data-invitation="${token}"`);

    const json = {
      organizationName: `Relief & ${XSS}`,
      email: 'guest@example.org',
      role: 'me_officer',
      expiresAt: expect.any(String),
    };
    expect(page.headers.vary).toBe('Origin, Accept');
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      const res = await call(t.app, 'GET', `/invitations/${token}`, { headers: accept ? { accept } : {} });
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.headers.vary, 'caches keep the page and the JSON apart').toBe('Origin, Accept');
      expect(res.body).toEqual(json);
    }
  });

  it('is a 404 page for a token that cannot be used; the JSON stays the contract’s 404', async () => {
    const page = await get('/invitations/unknown-token');
    expectPage(page, 404);
    expect(heading(page.body)).toBe('This invitation is no longer valid');
    const res = await call(t.app, 'GET', '/invitations/unknown-token');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      statusCode: 404,
      message: 'Invitation not found',
      error: 'Not Found',
      code: 'not_found',
    });
  });
});

describe('the password reset page', () => {
  it('asks for the new password while the link can be used, says so when it cannot, and when it is incomplete', async () => {
    const forgot = await call(t.app, 'POST', '/auth/forgot-password', { body: { email: team.viewer.email } });
    expect(forgot.status).toBe(202);
    const [email] = await emailsTo(t.smtp, team.viewer.email, 1, `${TEST_APP_URL}/reset-password?token=`);
    const link = linkIn(email!, `${TEST_APP_URL}/reset-password?token=`);
    const page = await get(link.slice(TEST_APP_URL.length));
    expectPage(page, 200);
    expect(heading(page.body)).toBe('Choose a new password');
    expect(page.body).toMatch(
      /<input\s+type="password"\s+id="newPassword"[^>]*minlength="8"\s+maxlength="128"/,
    );
    // Opening the page spends nothing: the link still sets a password, once.
    const token = new URL(link).searchParams.get('token')!;
    const reset = await call(t.app, 'POST', '/auth/reset-password', {
      body: { token, password: 'a brand new password' },
    });
    expect(reset.status).toBe(204);
    const used = await get(link.slice(TEST_APP_URL.length));
    expectPage(used, 404);
    expect(heading(used.body)).toBe('This link no longer works');
    expect(used.body).not.toContain('type="password"');

    const incomplete = await get('/reset-password');
    expectPage(incomplete, 200);
    expect(heading(incomplete.body)).toBe('This link is incomplete');
  });
});

describe('the email verification page', () => {
  it('offers a button that sends the token (disabled until the script runs), and says the link is incomplete without one', async () => {
    const page = await get('/verify-email?token=abc');
    expectPage(page, 200);
    expect(heading(page.body)).toBe('Confirm your email address');
    expect(page.body).toMatch(
      /<button type="button" disabled data-ready data-confirm>Confirm my email address<\/button>/,
    );
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(scriptsOf(page.body).some((asset) => asset.includes('account.'))).toBe(true);
    // The token stays in the address bar for the script: the page never writes it into its markup.
    expect(page.body).not.toContain('abc');
    const incomplete = await get('/verify-email');
    expectPage(incomplete, 200);
    expect(heading(incomplete.body)).toBe('This link is incomplete');
  });
});

describe('the pages’ scripts and stylesheet', () => {
  it('serves what each page links, cached for good, under 50 KB per page before compression', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const form = await publishedForm(t.app, team.admin, team.org.id, { projectId: project.id });
    for (const url of [`/f/${form.publicToken}`, '/sign-in', '/verify-email?token=x', '/f/missing']) {
      const assets = scriptsOf((await get(url)).body);
      expect(assets.length, url).toBeGreaterThan(0);
      let bytes = 0;
      for (const asset of assets) {
        const res = await get(asset, { 'accept-encoding': 'identity' });
        expect(res.statusCode, asset).toBe(200);
        expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(res.headers['content-type']).toMatch(/^text\/(css|javascript); charset=utf-8$/);
        bytes += res.rawPayload.length;
      }
      // The form page also runs the expression engine of issue 41 (form-expressions.js, shared with the
      // service): 80 KB as written, under 20 KB with Brotli.
      expect(bytes, url).toBeLessThan((url === `/f/${form.publicToken}` ? 80 : 50) * 1024);
    }
    const missing = await call(t.app, 'GET', '/assets/form.0000000000.js');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      statusCode: 404,
      message: 'Asset not found',
      error: 'Not Found',
      code: 'not_found',
    });
  });

  it('compresses pages and scripts for clients that take it, and counts them in the public rate limit', async () => {
    const res = await get('/sign-in', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['x-ratelimit-limit']).toBe('5000');
    const script = scriptsOf((await get('/sign-in')).body).find((a) => a.includes('account.'))!;
    const compressed = await get(script, { 'accept-encoding': 'br' });
    expect(compressed.headers['content-encoding']).toBe('br');
    // Scripts and the stylesheet do not spend the respondents' public limit.
    expect(compressed.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
