import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../../test/helpers/app.js';
import { call, TEST_BASE_URL } from '../../../test/helpers/http.js';
import {
  browserGet,
  periodPagePath,
  reportPagePath,
  returnedReportScene,
  type ReturnedScene,
} from '../../../test/helpers/member-pages.js';
import { createPeriod } from '../../../test/helpers/periods.js';
import { useSuite } from '../../../test/helpers/suite.js';
import type { TestUser } from '../../../test/helpers/factories.js';
import { indicatorReports } from '../indicator-reports/indicator-reports.tables.js';
import { reportingPeriods } from '../periods/periods.tables.js';
import { webhookEndpoints } from '../webhooks/webhooks.tables.js';

const { t, team } = useSuite();
const XSS = '<script>alert("x")</script>';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

let scene: ReturnedScene;
beforeAll(async () => {
  scene = await returnedReportScene(t.app, t.database.db, team, {
    projectName: `Clean Water ${XSS}`,
    comment: `Recount ${XSS}\n\nThe male count misses the second village.`,
  });
});

const get = (url: string, as?: TestUser | null) => browserGet(t.app, url, as);
type Answer = Awaited<ReturnType<typeof get>>;
const heading = (body: string) => /<h1>([\s\S]*?)<\/h1>/.exec(body)?.[1]?.replace(/\s+/g, ' ').trim();
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function expectPage(res: Answer, status: number) {
  expect(res.statusCode, res.body.slice(0, 400)).toBe(status);
  expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(res.headers['content-security-policy']).toContain("script-src 'self'");
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body.startsWith('<!doctype html>')).toBe(true);
}

function expectSignIn(res: Answer, path: string) {
  expect(res.statusCode).toBe(303);
  expect(res.headers.location).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
  expect(res.headers['cache-control']).toBe('no-store');
}

const expectForbidden = (res: Answer) => {
  expectPage(res, 403);
  expect(heading(res.body)).toBe('You do not have access to this page');
};
const expectNotFound = (res: Answer) => {
  expectPage(res, 404);
  expect(heading(res.body)).toBe('This page does not exist');
};

const webhooksPage = (orgId = team.org.id) => `/orgs/${orgId}/settings/webhooks`;

describe('signed out', () => {
  it('every member page sends the browser to the sign-in page, which leads back to it', async () => {
    const paths = [
      reportPagePath(scene.project.id, scene.returned.id),
      `${periodPagePath(scene.project.id, scene.period.id)}?from=email`,
      '/settings',
      webhooksPage(),
    ];
    for (const path of paths) expectSignIn(await get(path), path);
    // A session that no longer holds (signed out, or a token the service refuses) is no session.
    const signedOut = { ...team.viewer, token: `${team.viewer.token}x` };
    expectSignIn(await get('/settings', signedOut), '/settings');
  });

  it('the sign-in page keeps a path of this service as next, and ignores anything else', async () => {
    const page = await get(`/sign-in?next=${encodeURIComponent('/settings?tab=1#x')}`);
    expectPage(page, 200);
    expect(heading(page.body)).toBe('Sign in');
    expect(page.body).toContain('data-next="/settings?tab=1#x"');
    expect(page.body).toMatch(/<input\s+type="email"\s+id="email"/);
    expect(page.body).toMatch(/<button type="submit" disabled data-ready>Sign in<\/button>/);
    expect(page.headers['x-ratelimit-limit']).toBeDefined();

    const refused = [
      '//evil.example/phish',
      '/\\evil.example',
      '/ok\\..\\x',
      'https://evil.example/',
      'http:/evil.example',
      'javascript:alert(1)',
      'settings',
      '/\t/evil.example',
      '/sign-in?next=//evil.example',
      '',
      // Outside printable ASCII: a Location header cannot carry it (it was a 500), and no link we make has it.
      '/\u3002evil.example',
      '/\uff0f/evil.example',
      '/caf\u00e9',
    ];
    for (const next of refused) {
      const res = await get(`/sign-in?next=${encodeURIComponent(next)}`);
      expectPage(res, 200);
      expect(res.body, next).toContain('data-next="/settings"');
    }
    expect((await get('/sign-in')).body).toContain('data-next="/settings"');
    const tooLong = await get(`/sign-in?next=/${'a'.repeat(2048)}`);
    expectPage(tooLong, 200);
    expect(tooLong.body).toContain('data-next="/settings"');
  });

  it('offers the identity provider’s sign-in when one is configured', async () => {
    expect((await get('/sign-in')).body).not.toContain('/auth/idp');
    const withProvider = await buildTestApp({
      OIDC_ISSUER: 'http://127.0.0.1:9/issuer',
      OIDC_CLIENT_ID: 'mel',
      OIDC_CLIENT_SECRET: 'secret',
      OIDC_REDIRECT_URI: `${TEST_BASE_URL}/auth/idp/callback`,
    });
    try {
      const page = await browserGet(withProvider.app, '/sign-in');
      expectPage(page, 200);
      expect(page.body).toContain(
        `<a class="button" href="${TEST_BASE_URL}/auth/idp">Sign in with your organization’s account</a>`,
      );
    } finally {
      await withProvider.close();
    }
  });

  it('a signed-in visitor of the sign-in page goes straight on', async () => {
    const path = reportPagePath(scene.project.id, scene.returned.id);
    const res = await get(`/sign-in?next=${encodeURIComponent(path)}`, team.reporter);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(path);
    const elsewhere = await get('/sign-in?next=//evil.example', team.reporter);
    expect(elsewhere.headers.location).toBe('/settings');
    const unicode = await get(`/sign-in?next=${encodeURIComponent('/\u3002evil.example')}`, team.reporter);
    expect([unicode.statusCode, unicode.headers.location]).toEqual([303, '/settings']);
  });
});

describe('the end of a sign-in with the identity provider', () => {
  it('sends a signed-in browser on to the settings page, and says why a failed one failed', async () => {
    const user = encodeURIComponent(JSON.stringify({ id: team.viewer.id, createdAt: '2026-01-01' }));
    const signedIn = await get(`/auth/callback?user=${user}`, team.viewer);
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/settings');

    const denied = await get('/auth/callback?error=access_denied');
    expectPage(denied, 200);
    expect(heading(denied.body)).toBe('You are not signed in');
    expect(text(denied.body)).toContain(
      'The sign-in was cancelled at your organization’s identity provider.',
    );
    expect(denied.body).toContain('href="/sign-in"');
    const unknown = await get('/auth/callback?error=temporarily_unavailable');
    expect(text(unknown.body)).toContain(
      'The identity provider refused the sign-in (temporarily_unavailable). Try again, or ask your administrator.',
    );
    // Anyone can write the query: text that is not a code (a phishing sentence, markup) is not shown,
    // and a name of Object.prototype is a code like any unknown one, not the prototype's function.
    for (const error of [XSS, 'Your account is locked. Call +1-555-0100']) {
      const other = await get(`/auth/callback?error=${encodeURIComponent(error)}`, team.viewer);
      expectPage(other, 200);
      expect(text(other.body), error).toContain('The sign-in did not complete: no session was started.');
      expect(other.body, error).not.toContain('refused the sign-in');
    }
    for (const error of ['constructor', '__proto__']) {
      const other = await get(`/auth/callback?error=${error}`, team.viewer);
      expect(text(other.body), error).toContain(`The identity provider refused the sign-in (${error}).`);
      expect(other.body, error).not.toContain('native code');
    }
    const none = await get(`/auth/callback?user=${user}`);
    expect(text(none.body)).toContain('The sign-in did not complete: no session was started.');
  });
});

describe('the indicator report page', () => {
  const path = () => reportPagePath(scene.project.id, scene.returned.id);

  it('shows its reporter the report, who returned it and why, and a form to correct and resubmit it', async () => {
    const res = await get(path(), team.reporter);
    expectPage(res, 200);
    expect(heading(res.body)).toBe(`People with safe water <span class="code">${scene.counted.code}</span>`);
    expect(res.body).not.toContain(XSS);
    expect(res.body).toContain('Clean Water &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    const words = text(res.body);
    expect(words).toContain(`Signed in as ${team.reporter.email}`);
    expect(words).toContain('reporting period Q1 2026 (1 Jan 2026 – 31 Mar 2026)');
    expect(words).toContain('Status Returned for correction');
    expect(words).toContain('Value 120 people');
    expect(words).toContain('Last submitted');
    expect(words).toContain('by Rita Reporter');
    expect(words).toContain('Returned by Omar Officer');
    expect(words).toContain('Recount &lt;script&gt;');
    expect(words).toContain('The male count misses the second village.');
    expect(words).toContain('female 70 male 50');
    expect(words).toContain('Counted at the water points.');
    expect(res.body).toContain(`data-api="/orgs/${team.org.id}/indicator-reports/${scene.returned.id}"`);
    expect(res.body).toMatch(/<legend>Sex<\/legend>/);
    expect(res.body).toMatch(/<div data-category="female">[\s\S]*?value="70"/);
    expect(heading(res.body)).toBeDefined();
    expect(res.body).toContain('<h2>Correct and submit again</h2>');
    expect(res.body).toContain(`href="${periodPagePath(scene.project.id, scene.period.id)}"`);
  });

  it('lets viewers read it without a form, and M&E officers correct it too', async () => {
    const viewed = await get(path(), team.viewer);
    expectPage(viewed, 200);
    expect(viewed.body).not.toContain('data-report-edit');
    expect(text(viewed.body)).toContain(
      'Viewers can read this report; reporters and M&amp;E officers change it.',
    );
    expect(viewed.body).not.toContain('member.');
    const officer = await get(path(), team.officer);
    expectPage(officer, 200);
    expect(officer.body).toContain('data-report-edit');
  });

  it('shows the report’s data-quality flags and asks the justification a submission may need', async () => {
    const other = await returnedReportScene(t.app, t.database.db, team);
    const page = () => get(reportPagePath(other.project.id, other.returned.id), team.reporter);
    const before = await page();
    expect(before.body).toMatch(/<textarea id="justification" name="justification"/);
    expect(before.body).not.toContain('data-flags');
    await t.database.db
      .update(indicatorReports)
      .set({
        flags: [
          {
            kind: 'rule',
            rule: UNKNOWN_ID,
            message: 'Within <registered>: TRAINED (12) must be <= REGISTERED (10)',
            importance: 'high',
            instruction: 'Check the sheets',
            justification: null,
          },
        ],
      })
      .where(eq(indicatorReports.id, other.returned.id));
    const flagged = await page();
    expectPage(flagged, 200);
    expect(flagged.body).toContain('data-flags');
    expect(flagged.body).not.toContain('<registered>');
    expect(text(flagged.body)).toContain(
      'Within &lt;registered&gt;: TRAINED (12) must be &lt;= REGISTERED (10) Check the sheets',
    );
  });

  it('refuses a reporter the project is not assigned to, as the API does (403 page)', async () => {
    const api = await call(t.app, 'GET', `/orgs/${team.org.id}/indicator-reports/${scene.returned.id}`, {
      as: scene.unassigned,
    });
    expect(api.status).toBe(403);
    expectForbidden(await get(path(), scene.unassigned));
    const page = await get(path(), scene.unassigned);
    expect(text(page.body)).toContain(`You are signed in as ${scene.unassigned.email} .`);
    expect(page.body).toContain(`data-next="/sign-in?next=${encodeURIComponent(path())}"`);
  });

  it('is a 404 page for another organization’s, an unknown or a malformed id, and another project’s report', async () => {
    expectNotFound(await get(path(), team.outsider));
    expectNotFound(await get(reportPagePath(scene.project.id, UNKNOWN_ID), team.reporter));
    expectNotFound(await get(reportPagePath(UNKNOWN_ID, scene.returned.id), team.reporter));
    expectNotFound(await get(reportPagePath(scene.project.id, 'not-a-uuid'), team.reporter));
    const other = await returnedReportScene(t.app, t.database.db, team);
    expectNotFound(await get(reportPagePath(scene.project.id, other.returned.id), team.admin));
  });

  it('offers no form once the period is locked', async () => {
    const other = await returnedReportScene(t.app, t.database.db, team);
    await t.database.db
      .update(reportingPeriods)
      .set({ isLocked: true })
      .where(eq(reportingPeriods.id, other.period.id));
    const res = await get(reportPagePath(other.project.id, other.returned.id), team.reporter);
    expectPage(res, 200);
    expect(res.body).not.toContain('data-report-edit');
    expect(text(res.body)).toContain('The reporting period is locked: this report can no longer change.');
  });
});

describe('the reporting period page', () => {
  const path = () => periodPagePath(scene.project.id, scene.period.id);

  it('lists what is still to be done, with a link to each report and a way to start a missing one', async () => {
    const res = await get(path(), team.reporter);
    expectPage(res, 200);
    expect(heading(res.body)).toBe('Reporting period Q1 2026');
    const words = text(res.body);
    expect(words).toContain('Still to do (2)');
    expect(words).toContain(
      `People with safe water ${scene.counted.code} Returned for correction 120 people Open the report`,
    );
    expect(words).toContain(`Wells repaired ${scene.missing.code} Not started — Start the report`);
    expect(res.body).toContain(`href="${reportPagePath(scene.project.id, scene.returned.id)}"`);
    expect(res.body).toContain(`data-start="${scene.missing.id}"`);
    expect(res.body).toContain(
      `data-api="/orgs/${team.org.id}/projects/${scene.project.id}/indicator-reports"`,
    );
    const viewed = await get(path(), team.viewer);
    expectPage(viewed, 200);
    expect(viewed.body).not.toContain('data-start');
  });

  it('refuses an unassigned reporter (403 page) and is a 404 page for anything not of the user’s organizations', async () => {
    expectForbidden(await get(path(), scene.unassigned));
    expectNotFound(await get(path(), team.outsider));
    expectNotFound(await get(periodPagePath(scene.project.id, UNKNOWN_ID), team.reporter));
    const elsewhere = await createPeriod(
      t.database.db,
      team.org.id,
      (await returnedReportScene(t.app, t.database.db, team)).project.id,
    );
    expectNotFound(await get(periodPagePath(scene.project.id, elsewhere.id), team.admin));
    expectNotFound(await get(periodPagePath('x', scene.period.id), team.admin));
  });
});

describe('a refusal of the whole service on a member page', () => {
  it('is a page with the pages’ headers: too many requests (429)', async () => {
    // Counted in this process: with REDIS_URL, every file's requests from 127.0.0.1 share one count.
    const limited = await buildTestApp({ RATE_LIMIT_MAX: '1', REDIS_URL: '' });
    try {
      expectSignIn(await browserGet(limited.app, '/settings'), '/settings');
      const refused = await browserGet(limited.app, '/settings');
      expectPage(refused, 429);
      expect(refused.headers['x-robots-tag']).toBe('noindex, nofollow');
      expect(refused.headers['retry-after']).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});

describe('the settings page', () => {
  it('shows the reminders setting as stored, the organizations and their pages', async () => {
    const res = await get('/settings', team.admin);
    expectPage(res, 200);
    expect(heading(res.body)).toBe('Your settings');
    expect(res.body).toMatch(/<input type="checkbox" id="reminders" name="reminders" checked/);
    expect(text(res.body)).toContain(`${team.org.name} , as administrator · Webhooks`);
    expect(res.body).toContain(`href="/orgs/${team.org.id}/settings/webhooks"`);

    const off = await call(t.app, 'PATCH', '/auth/me', {
      as: team.viewer,
      body: { notifications: { reminders: false } },
    });
    expect(off.status).toBe(200);
    const viewer = await get('/settings', team.viewer);
    expectPage(viewer, 200);
    expect(viewer.body).not.toMatch(/id="reminders" name="reminders" checked/);
    expect(text(viewer.body)).toContain(`${team.org.name} , as viewer`);
    expect(viewer.body).not.toContain('/settings/webhooks');
  });
});

describe('the webhooks page', () => {
  it('shows the organization’s admins each endpoint and its state', async () => {
    const [failing] = await t.database.db
      .insert(webhookEndpoints)
      .values({
        orgId: team.org.id,
        url: `https://hooks.example.org/mel?x=${XSS}`,
        events: ['indicator_report.submitted'],
        secret: 'sealed',
        active: false,
        disabledReason: 'failing',
        disabledAt: new Date('2026-03-06T10:00:00Z'),
        failingSince: new Date('2026-03-01T10:00:00Z'),
      })
      .returning();
    const created = await call(t.app, 'POST', `/orgs/${team.org.id}/webhooks`, {
      as: team.admin,
      body: {
        url: 'https://crm.example.org/in',
        events: ['indicator_report.approved'],
        description: 'Our CRM',
      },
    });
    expect(created.status).toBe(201);

    const res = await get(webhooksPage(), team.admin);
    expectPage(res, 200);
    expect(heading(res.body)).toBe(`Webhooks of ${team.org.name}`);
    expect(res.body).not.toContain(XSS);
    const words = text(res.body);
    expect(words).toContain(
      'https://crm.example.org/in Our CRM Events: indicator_report.approved Active: events are sent to it.',
    );
    expect(words).toContain(
      'Turned off by the service on 6 March 2026 at 10:00 UTC , because every delivery had failed for 5 days. Turn back on',
    );
    expect(res.body).toContain(`data-api="/orgs/${team.org.id}/webhooks/${failing!.id}"`);
  });

  it('is the 403 page for members who are not admins and for strangers, and a 404 page for a malformed id', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      expectForbidden(await get(webhooksPage(), user));
    }
    expectForbidden(await get(webhooksPage(UNKNOWN_ID), team.admin));
    expectNotFound(await get(webhooksPage('not-an-id'), team.admin));
  });
});

describe('the password reset page', () => {
  it('says a used or unknown link no longer works before asking for a password', async () => {
    const unknown = await get('/reset-password?token=not-a-token');
    expectPage(unknown, 404);
    expect(heading(unknown.body)).toBe('This link no longer works');
    expect(unknown.body).not.toContain('type="password"');
    expect(unknown.body).toContain('href="/sign-in"');
  });
});
