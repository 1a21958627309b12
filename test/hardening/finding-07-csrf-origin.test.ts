import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestAppWithMail, type MailTestApp } from '../helpers/app.js';
import {
  addMember,
  createTeam,
  registerUser,
  uniqueEmail,
  type Team,
  type TestUser,
} from '../helpers/factories.js';
import { multipart, PDF } from '../helpers/files.js';
import { answers, formTargets, formUrl, publishedForm, submitUrl, type FormJson } from '../helpers/forms.js';
import { call, expectError, forbiddenBody, UNAUTHORIZED, type Call } from '../helpers/http.js';
import { invitedToken } from '../helpers/invitations.js';
import { jwtCookie } from '../helpers/sessions.js';

const BASE_URL = 'http://api.test';
const APP_URL = 'http://app.test';
const PARTNER = 'https://dashboard.partner.example.org';
const SIBLING = 'https://sibling.example.org';
/** The 403 of a cookie session's change from an origin the service does not know: no role would help. */
const CROSS_ORIGIN = forbiddenBody(undefined, 'origin_not_allowed');

let t: MailTestApp;
let team: Team;
let form: FormJson;
let projectId: string;

beforeAll(async () => {
  t = await buildTestAppWithMail({ BASE_URL, APP_URL, CORS_ORIGINS: `${APP_URL},${PARTNER}` });
  team = await createTeam(t.app, t.database.db);
  projectId = (await formTargets(t.app, t.database.db, team.admin, team.org.id)).project.id;
  form = await publishedForm(t.app, team.admin, team.org.id, { projectId });
});
afterAll(() => t.close());

/** The browser's session cookie and whatever else these headers say, nothing added. */
const cookie = (user: TestUser, headers: Record<string, string> = {}) => ({
  headers: { cookie: `jwt=${user.token}`, ...headers },
});

/** The regenerate-token request of the report: a POST with no body and no Content-Type. */
const regenerate = (headers: Record<string, string>) =>
  call(t.app, 'POST', formUrl(team.org.id, form.id, 'regenerate-token'), cookie(team.admin, headers));

const currentToken = async () =>
  (await call(t.app, 'GET', formUrl(team.org.id, form.id), { as: team.admin })).body.publicToken as string;

const attachmentsUrl = () => `/orgs/${team.org.id}/projects/${projectId}/attachments`;

function expectAllowed(res: Call, status = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
}

describe('finding 7: cookie sessions refuse unsafe requests from other origins', () => {
  it('refuses the regenerate-token attack (no Content-Type, sibling Origin) and keeps the token', async () => {
    const before = await currentToken();
    const res = await regenerate({ origin: SIBLING });
    expectError(res, CROSS_ORIGIN);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(await currentToken()).toBe(before);
  });

  it('refuses a multipart upload from a sibling origin and stores nothing', async () => {
    const upload = multipart([{ name: 'file', value: PDF, fileName: 'forged.pdf' }]);
    const res = await call(t.app, 'POST', attachmentsUrl(), {
      body: upload.body,
      headers: { ...upload.headers, cookie: `jwt=${team.admin.token}`, origin: SIBLING },
    });
    expectError(res, CROSS_ORIGIN);
    const list = await call(t.app, 'GET', attachmentsUrl(), { as: team.admin });
    expect(list.body).toEqual([]);
  });

  it('refuses a cookie request with neither Origin nor Referer', async () => {
    const before = await currentToken();
    expectError(await regenerate({}), CROSS_ORIGIN);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const res = await call(t.app, method, formUrl(team.org.id, form.id), {
        ...cookie(team.admin),
        ...(method === 'PATCH' ? { body: { title: 'Forged' } } : {}),
      });
      expectError(res, CROSS_ORIGIN);
    }
    expect(await currentToken()).toBe(before);
  });

  it('falls back to the Referer, reduced to its origin, when there is no Origin', async () => {
    expectAllowed(await regenerate({ referer: `${APP_URL}/projects/${projectId}/forms?tab=links` }));
    expectAllowed(await regenerate({ referer: `${BASE_URL}/api` }));
    for (const referer of [`${SIBLING}/page`, 'http://app.test.sibling.example.org/', 'not a url']) {
      expectError(await regenerate({ referer }), CROSS_ORIGIN);
    }
  });

  it("accepts BASE_URL's, APP_URL's and each CORS origin, and compares scheme, host and port exactly", async () => {
    for (const origin of [BASE_URL, APP_URL, PARTNER, `${APP_URL}:80`, 'HTTP://APP.TEST']) {
      expectAllowed(await regenerate({ origin }));
    }
    for (const origin of [
      SIBLING,
      'https://app.test',
      'http://app.test:8080',
      'http://sub.app.test',
      'http://partner.example.org',
      `${PARTNER}:8443`,
    ]) {
      expectError(await regenerate({ origin }), CROSS_ORIGIN);
    }
  });

  it('refuses Origin: null, even with a good Referer', async () => {
    expectError(await regenerate({ origin: 'null' }), CROSS_ORIGIN);
    expectError(await regenerate({ origin: 'null', referer: `${APP_URL}/` }), CROSS_ORIGIN);
  });

  it('lets a bearer request through from any origin, also when a cookie comes along', async () => {
    const bearer = { authorization: `Bearer ${team.admin.token}` };
    expectAllowed(
      await call(t.app, 'POST', formUrl(team.org.id, form.id, 'regenerate-token'), {
        headers: { ...bearer, origin: SIBLING },
      }),
    );
    expectAllowed(await regenerate({ ...bearer, origin: SIBLING }));
    // A bearer token that does not verify leaves the cookie to authenticate: then the origin counts.
    expectError(
      await regenerate({ authorization: 'Bearer forged.token.value', origin: SIBLING }),
      CROSS_ORIGIN,
    );
  });

  it('answers safe methods with a cookie from any origin', async () => {
    const read = await call(
      t.app,
      'GET',
      formUrl(team.org.id, form.id),
      cookie(team.admin, { origin: SIBLING }),
    );
    expectAllowed(read);
    expectError(await regenerate({ origin: SIBLING }), CROSS_ORIGIN);
  });

  it('leaves public routes alone: a public submission and a login from another origin work', async () => {
    const submitted = await call(t.app, 'POST', submitUrl(await currentToken()), {
      ...cookie(team.viewer, { origin: SIBLING }),
      body: { answers: answers() },
    });
    expectAllowed(submitted, 201);
    const login = await call(t.app, 'POST', '/auth/login', {
      headers: { origin: SIBLING },
      body: { email: team.viewer.email, password: team.viewer.password },
    });
    expectAllowed(login);
    const token = await call(t.app, 'POST', '/auth/token', {
      ...cookie(team.viewer, { origin: SIBLING }),
      body: { email: team.viewer.email, password: team.viewer.password },
    });
    expectAllowed(token);
    // While the same cookie from the same origin cannot change what needs a session.
    expectError(await regenerate({ origin: SIBLING }), CROSS_ORIGIN);
  });

  it('does not let a cookie switch the organization (POST /auth/token) from another origin', async () => {
    const user = await registerUser(t.app);
    await addMember(t.database.db, team.org.id, user.id, 'viewer');
    const body = { organizationId: team.org.id };
    const foreign = await call(t.app, 'POST', '/auth/token', { ...cookie(user, { origin: SIBLING }), body });
    // A public route: the cookie is not refused, it is not used, so the switch has no session.
    expectError(foreign, UNAUTHORIZED);
    expect(foreign.headers['set-cookie']).toBeUndefined();
    const own = await call(t.app, 'POST', '/auth/token', { ...cookie(user, { origin: APP_URL }), body });
    expectAllowed(own);
    expect(jwtCookie(own).value).toBe(own.body.accessToken);
  });

  it('refuses a cross-origin invitation accept and sign-out, which need the session', async () => {
    // Invited first, so the invitation is the first email to the address.
    const email = uniqueEmail('invited');
    const { token } = await invitedToken(t.app, t.smtp, team.admin, team.org.id, email);
    const user = await registerUser(t.app, { email });
    const accept = `/invitations/${token}/accept`;
    expectError(await call(t.app, 'POST', accept, cookie(user, { origin: SIBLING })), CROSS_ORIGIN);
    const members = await call(t.app, 'GET', `/orgs/${team.org.id}/members`, { as: team.admin });
    expect(members.body.map((m: { email: string }) => m.email)).not.toContain(user.email);
    expectAllowed(await call(t.app, 'POST', accept, cookie(user, { origin: APP_URL })));

    expectError(await call(t.app, 'POST', '/auth/logout', cookie(user, { origin: SIBLING })), CROSS_ORIGIN);
    expectAllowed(await call(t.app, 'GET', '/auth/me', cookie(user)));
    expectAllowed(await call(t.app, 'POST', '/auth/logout', cookie(user, { origin: APP_URL })), 204);
  });
});
