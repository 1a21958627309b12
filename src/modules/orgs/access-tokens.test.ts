import { createHash } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { participantsUrl, person, postActivity, register } from '../../../test/helpers/activities.js';
import { addMember, createProject, registerUser } from '../../../test/helpers/factories.js';
import { auditEntriesIn } from '../../../test/helpers/forms.js';
import {
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  type Call,
} from '../../../test/helpers/http.js';
import { programsUrl } from '../../../test/helpers/programs.js';
import { useSuite } from '../../../test/helpers/suite.js';
import type { TestUser } from '../../../test/helpers/factories.js';
import { users } from '../auth/auth.tables.js';
import { accessTokens } from './access-tokens.tables.js';
import { orgMembers } from './orgs.tables.js';

const { t, team } = useSuite();
const org = () => team.org.id;

/** A new user, a viewer of the team's organization. */
async function createTeamMember(): Promise<TestUser> {
  const user = await registerUser(t.app);
  await addMember(t.database.db, org(), user.id, 'viewer');
  return user;
}

const tokensUrl = '/auth/tokens';

async function create(as: TestUser, body: Record<string, unknown> = {}) {
  const res = await call(t.app, 'POST', tokensUrl, {
    as,
    body: { name: 'Power BI', orgId: org(), scope: 'read', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; token: string; [key: string]: unknown };
}

/** A request with the token, as a bearer token or as HTTP Basic's password. */
function withToken(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  token: string,
  options: { basic?: boolean; body?: unknown } = {},
): Promise<Call> {
  const authorization = options.basic
    ? `Basic ${Buffer.from(`analyst:${token}`).toString('base64')}`
    : `Bearer ${token}`;
  return call(t.app, method, url, { as: null, headers: { authorization }, body: options.body });
}

const program = { name: 'Clean water', startDate: '2026-01-01', endDate: '2026-12-31' };

describe('POST /auth/tokens', () => {
  it('answers the secret once, keeps only its SHA-256, and lists the token without it', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const res = await call(t.app, 'POST', tokensUrl, {
      as: team.officer,
      body: { name: '  Power BI  ', orgId: org(), scope: 'write', expiresAt },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Power BI',
      orgId: org(),
      scope: 'write',
      prefix: expect.stringMatching(/^mel_pat_.{4}$/),
      expiresAt,
      lastUsedAt: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      token: expect.stringMatching(/^mel_pat_[A-Za-z0-9_-]{43}$/),
    });
    expect(res.headers.location).toMatch(new RegExp(`/auth/tokens/${res.body.id}$`));
    expect(res.body.token.startsWith(res.body.prefix)).toBe(true);
    const [row] = await t.database.db.select().from(accessTokens).where(eq(accessTokens.id, res.body.id));
    expect(row!.secretHash).toBe(createHash('sha256').update(res.body.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(res.body.token);

    const { token, ...shown } = res.body;
    const list = await call(t.app, 'GET', tokensUrl, { as: team.officer });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([shown]);
    expect(JSON.stringify(list.body)).not.toContain(token);
    const one = await call(t.app, 'GET', `${tokensUrl}/${res.body.id}`, { as: team.officer });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(shown);
  });

  it('lasts 90 days when expiresAt is left out, forever when it is null', async () => {
    const lasting = await create(team.viewer);
    const days = (Date.parse(lasting.expiresAt as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    expect((await create(team.viewer, { expiresAt: null })).expiresAt).toBeNull();
  });

  it('refuses what is not a token request with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['name is required', 'orgId is required', 'scope is required']],
      [
        { name: ' ', orgId: 'x', scope: 'admin' },
        ['name should not be empty', 'orgId must be a UUID', 'scope must be one of read, write'],
      ],
      [
        { name: 'A', orgId: org(), scope: 'read', expiresAt: '2020-01-01T00:00:00Z' },
        ['expiresAt must be in the future'],
      ],
      [{ name: 'A', orgId: org(), scope: 'read', role: 'org_admin' }, ['property role should not exist']],
    ];
    for (const [body, messages] of cases) {
      expectViolations(await call(t.app, 'POST', tokensUrl, { as: team.admin, body }), ...messages);
    }
  });

  it('is for the signed-in, in one of their organizations: 401 without a session, 403 elsewhere', async () => {
    const body = { name: 'A', orgId: org(), scope: 'read' };
    expectError(await call(t.app, 'POST', tokensUrl, { as: null, body }), UNAUTHORIZED);
    for (const orgId of [team.outsiderOrg.id, MISSING_ID]) {
      const res = await call(t.app, 'POST', tokensUrl, { as: team.admin, body: { ...body, orgId } });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', reason: 'not_a_member' });
    }
    const made = await t.database.db
      .select()
      .from(accessTokens)
      .where(eq(accessTokens.userId, team.admin.id));
    expect(made.filter((row) => row.orgId !== org())).toEqual([]);
  });
});

describe('GET and DELETE /auth/tokens/:id', () => {
  it('another user’s token, or none, is not found; no session is 401', async () => {
    const mine = await create(team.admin);
    for (const [as, id] of [
      [team.officer, mine.id],
      [team.admin, MISSING_ID],
    ] as const) {
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await call(t.app, method, `${tokensUrl}/${id}`, { as });
        expect(res.status).toBe(404);
        expect(res.body).toEqual(notFoundBody('Access token'));
      }
    }
    expectError(await call(t.app, 'GET', tokensUrl, { as: null }), UNAUTHORIZED);
    expectError(await call(t.app, 'DELETE', `${tokensUrl}/${mine.id}`, { as: null }), UNAUTHORIZED);
    expect((await withToken('GET', programsUrl(org()), mine.token)).status).toBe(200);
  });

  it('revokes at once: the next request with it is 401', async () => {
    const { id, token } = await create(team.admin);
    expect((await withToken('GET', programsUrl(org()), token)).status).toBe(200);
    expect((await call(t.app, 'DELETE', `${tokensUrl}/${id}`, { as: team.admin })).status).toBe(204);
    const refused = await withToken('GET', programsUrl(org()), token);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    const left = (await call(t.app, 'GET', tokensUrl, { as: team.admin })).body as { id: string }[];
    expect(left.map((token) => token.id)).not.toContain(id);
  });
});

describe('a personal access token', () => {
  it('acts as its user in its organization, as Bearer or as Basic’s password, and records its last use', async () => {
    const { id, token } = await create(team.admin, { scope: 'write' });
    for (const basic of [false, true]) {
      const res = await withToken('GET', programsUrl(org()), token, { basic });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const created = await withToken('POST', programsUrl(org()), token, { body: program });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const [row] = await t.database.db.select().from(accessTokens).where(eq(accessTokens.id, id));
    expect(Date.now() - row!.lastUsedAt!.getTime()).toBeLessThan(60_000);
    const listed = await call(t.app, 'GET', `${tokensUrl}/${id}`, { as: team.admin });
    expect(listed.body.lastUsedAt).toBe(row!.lastUsedAt!.toISOString());
  });

  it('with the read scope allows GET only: 403 read_only_token otherwise', async () => {
    const { token } = await create(team.admin, { scope: 'read' });
    const res = await withToken('POST', programsUrl(org()), token, { body: program });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', reason: 'read_only_token' });
  });

  it('has at most its user’s role, as it is at each request', async () => {
    const { token } = await create(team.viewer, { scope: 'write' });
    const res = await withToken('POST', programsUrl(org()), token, { body: program });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', allowedRoles: ['org_admin'] });

    const admin = await create(team.admin, { scope: 'write' });
    await t.database.db
      .update(orgMembers)
      .set({ role: 'viewer' })
      .where(sql`${orgMembers.userId} = ${team.admin.id} AND ${orgMembers.orgId} = ${org()}`);
    expect((await withToken('POST', programsUrl(org()), admin.token, { body: program })).status).toBe(403);
    expect((await withToken('GET', programsUrl(org()), admin.token)).status).toBe(200);
    await t.database.db
      .update(orgMembers)
      .set({ role: 'org_admin' })
      .where(sql`${orgMembers.userId} = ${team.admin.id} AND ${orgMembers.orgId} = ${org()}`);
  });

  it('reaches its own organization’s routes only', async () => {
    const { token } = await create(team.admin, { scope: 'write' });
    const elsewhere = await withToken('GET', programsUrl(team.outsiderOrg.id), token);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body).toMatchObject({ reason: 'not_a_member' });
    for (const [method, url] of [
      ['GET', '/auth/me'],
      ['GET', tokensUrl],
      ['POST', tokensUrl],
    ] as const) {
      const res = await withToken(method, url, token, { body: { name: 'x', orgId: org(), scope: 'write' } });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body).toMatchObject({ code: 'forbidden', reason: 'token_outside_organization' });
    }
  });

  it('is refused (401) once expired, after its user’s password reset, or when its user left', async () => {
    const url = programsUrl(org());
    const expired = await create(team.officer);
    await t.database.db
      .update(accessTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(accessTokens.id, expired.id));
    expect((await withToken('GET', url, expired.token)).status).toBe(401);

    const reset = await create(team.reporter);
    await t.database.db
      .update(users)
      .set({ sessionsValidAfter: new Date(Date.now() + 1000) })
      .where(eq(users.id, team.reporter.id));
    expect((await withToken('GET', url, reset.token)).status).toBe(401);

    const leaving = await create(team.viewer);
    expect((await withToken('GET', url, leaving.token)).status).toBe(200);
    await t.database.db
      .delete(orgMembers)
      .where(sql`${orgMembers.userId} = ${team.viewer.id} AND ${orgMembers.orgId} = ${org()}`);
    expect((await withToken('GET', url, leaving.token)).status).toBe(401);
  });

  it('refused as Basic, challenges for Basic; a made-up or foreign-looking secret is 401', async () => {
    const url = programsUrl(org());
    const made = await withToken('GET', url, 'mel_pat_madeup', { basic: true });
    expect(made.status).toBe(401);
    expect(made.body).toMatchObject({ code: 'unauthorized' });
    expect(made.headers['www-authenticate']).toBe('Basic realm="mel", charset="UTF-8"');
    // A password that is no token is not ours to judge: no session came, so the usual 401.
    const other = await withToken('GET', url, 'hunter2', { basic: true });
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toBe('Bearer');
    expect((await withToken('GET', url, 'mel_pat_madeup')).status).toBe(401);
  });

  it('is named in the audit entries of the requests it makes', async () => {
    const project = await createProject(t.database.db, org());
    const activity = await postActivity(t.app, team.officer, org(), project.id);
    await register(t.app, team.officer, org(), activity.id, [person()]);
    const { id, token } = await create(team.officer, { name: 'Nightly export' });
    const res = await withToken('GET', participantsUrl(org()), token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const entries = await auditEntriesIn(t.database.db, org());
    expect(entries.at(-1)).toMatchObject({
      action: 'read',
      actorId: team.officer.id,
      tokenId: id,
      tokenName: 'Nightly export',
    });
    const log = await call(t.app, 'GET', `/orgs/${org()}/audit-log?limit=1`, { as: team.admin });
    expect(log.body.data[0]).toMatchObject({ tokenId: id, tokenName: 'Nightly export' });
  });

  it('is never read on a public route: it buys no session there', async () => {
    const { id, token } = await create(team.officer, { scope: 'read' });
    const exchanged = await withToken('POST', '/auth/token', token, {
      body: { organizationId: team.org.id },
    });
    expect(exchanged.status).not.toBe(200);
    expect(JSON.stringify(exchanged.body)).not.toContain('accessToken');
    expect((await withToken('GET', '/health', token)).status).toBe(200);
    const [row] = await t.database.db.select().from(accessTokens).where(eq(accessTokens.id, id));
    expect(row!.lastUsedAt).toBeNull();
  });

  it('goes with the membership: a member removed and invited again starts without it', async () => {
    const member = await createTeamMember();
    const { id, token } = await create(member, { scope: 'read' });
    expect((await withToken('GET', programsUrl(org()), token)).status).toBe(200);
    const removed = await call(t.app, 'DELETE', `/orgs/${org()}/members/${member.id}`, { as: team.admin });
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    await t.database.db.insert(orgMembers).values({ orgId: org(), userId: member.id, role: 'viewer' });
    expect((await withToken('GET', programsUrl(org()), token)).status).toBe(401);
    expect(await t.database.db.select().from(accessTokens).where(eq(accessTokens.id, id))).toEqual([]);
  });

  it('leaves other Basic credentials (a proxy’s) to the session, and keeps Basic changes to our origin', async () => {
    const proxy = `Basic ${Buffer.from('proxyuser:proxypass').toString('base64')}`;
    const withCookie = await call(t.app, 'GET', programsUrl(org()), {
      as: null,
      headers: { authorization: proxy, cookie: `jwt=${team.admin.token}` },
    });
    expect(withCookie.status, JSON.stringify(withCookie.body)).toBe(200);

    const { token } = await create(team.admin, { scope: 'write' });
    const basic = `Basic ${Buffer.from(`analyst:${token}`).toString('base64')}`;
    const forged = await call(t.app, 'POST', programsUrl(org()), {
      as: null,
      headers: { authorization: basic, origin: 'https://evil.example' },
      body: program,
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toMatchObject({ reason: 'origin_not_allowed' });
    const scripted = await call(t.app, 'POST', programsUrl(org()), {
      as: null,
      headers: { authorization: basic },
      body: program,
    });
    expect(scripted.status, JSON.stringify(scripted.body)).toBe(201);
  });
});
