import { describe, expect, it } from 'vitest';
import { registerUser, uniqueCode } from '../../../test/helpers/factories.js';
import {
  call,
  sessionCookie,
  UNAUTHORIZED,
  ADMINS,
  ALL_ROLES,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

describe('POST /orgs', () => {
  it('creates the organization, makes the caller org_admin and re-issues the cookie', async () => {
    const user = await registerUser(t.app);
    const code = uniqueCode();
    const res = await call(t.app, 'POST', '/orgs', { as: user, body: { name: 'Water For All', code } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Water For All',
      code,
      logoUrl: null,
      iatiRef: null,
      iatiOrgType: '21',
      reminderDaysBefore: [7, 1],
      overdueReminder: true,
      separateApproval: false,
      showQualityNotes: false,
      ageBands: ['0-17', '18-35', '36-59', '60+', 'unknown'],
      defaultLocale: 'en',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const cookie = sessionCookie(res);
    expect(cookie).toBeDefined();
    const claims = JSON.parse(Buffer.from(cookie!.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ sub: user.id, organizationId: res.body.id, role: 'org_admin' });

    const mine = await call(t.app, 'GET', '/orgs', { as: user });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([{ ...res.body, role: 'org_admin' }]);
  });

  it("pages the caller's organizations on request", async () => {
    const user = await registerUser(t.app);
    for (const name of ['Bravo', 'Alpha', 'Charlie']) {
      expect(
        (await call(t.app, 'POST', '/orgs', { as: user, body: { name, code: uniqueCode() } })).status,
      ).toBe(201);
    }
    const page = await call(t.app, 'GET', '/orgs?page=2&limit=2', { as: user });
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ total: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page.body.data.map((o: { name: string }) => o.name)).toEqual(['Charlie']);
    const all = await call(t.app, 'GET', '/orgs', { as: user });
    expect(all.body.map((o: { name: string }) => o.name)).toEqual(['Alpha', 'Bravo', 'Charlie']);
  });

  it('refuses a taken code with 409', async () => {
    const res = await call(t.app, 'POST', '/orgs', {
      as: team.viewer,
      body: { name: 'Copy', code: team.org.code },
    });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: 'An organization with this code already exists',
      error: 'Conflict',
      code: 'duplicate',
    });
  });

  it('lists every violation, naming the field', async () => {
    const res = await call(t.app, 'POST', '/orgs', {
      as: team.viewer,
      body: { code: '-Bad Code', logoUrl: 'not a url', extra: true },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toEqual(
      expect.arrayContaining([
        'name is required',
        'code must be 2 to 32 lower-case letters, digits or dashes, starting with a letter or digit',
        'logoUrl must be a valid URL',
        'property extra should not exist',
      ]),
    );
  });

  it('needs a session', async () => {
    const res = await call(t.app, 'POST', '/orgs', { body: { name: 'X', code: uniqueCode() } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });
});

describe('GET /orgs/:orgId', () => {
  it('shows the organization to every member', async () => {
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      const res = await call(t.app, 'GET', `/orgs/${team.org.id}`, { as: user });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: team.org.id, name: team.org.name, code: team.org.code });
    }
  });

  it('refuses non-members with 403, no session with 401, a non-UUID id with 400', async () => {
    expect((await call(t.app, 'GET', `/orgs/${team.org.id}`, { as: team.outsider })).body).toEqual(
      notAMember(ALL_ROLES),
    );
    expect((await call(t.app, 'GET', `/orgs/${team.org.id}`)).status).toBe(401);
    const bad = await call(t.app, 'GET', '/orgs/not-a-uuid', { as: team.admin });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['orgId must be a UUID']);
  });

  it('answers 403 for an organization that does not exist (no membership there)', async () => {
    const res = await call(t.app, 'GET', '/orgs/00000000-0000-4000-8000-000000000000', { as: team.admin });
    expect(res.status).toBe(403);
  });
});

describe('PATCH /orgs/:orgId', () => {
  it('lets the org_admin change name, code and logo', async () => {
    const user = await registerUser(t.app);
    const org = (await call(t.app, 'POST', '/orgs', { as: user, body: { name: 'Old', code: uniqueCode() } }))
      .body;
    const code = uniqueCode('new');
    const res = await call(t.app, 'PATCH', `/orgs/${org.id}`, {
      as: user,
      body: { name: 'New name', code, logoUrl: 'https://cdn.example.org/logo.png' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: org.id,
      name: 'New name',
      code,
      logoUrl: 'https://cdn.example.org/logo.png',
    });
    const cleared = await call(t.app, 'PATCH', `/orgs/${org.id}`, { as: user, body: { logoUrl: null } });
    expect(cleared.body.logoUrl).toBeNull();
    const empty = await call(t.app, 'PATCH', `/orgs/${org.id}`, { as: user, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.name).toBe('New name');
  });

  it('refuses other roles and outsiders with 403', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { as: user, body: { name: 'Hijack' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
  });

  it('refuses a code another organization has with 409, and bad fields with 400', async () => {
    const taken = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { code: team.outsiderOrg.code },
    });
    expect(taken.status).toBe(409);
    const bad = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { name: '', id: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining(['name should not be empty', 'property id should not exist']),
    );
  });

  it("cannot reach another organization's data through a foreign id", async () => {
    const res = await call(t.app, 'PATCH', `/orgs/${team.outsiderOrg.id}`, {
      as: team.admin,
      body: { name: 'X' },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(notAMember(ADMINS));
    const untouched = await call(t.app, 'GET', `/orgs/${team.outsiderOrg.id}`, { as: team.outsider });
    expect(untouched.body.name).toBe(team.outsiderOrg.name);
  });
});

describe('IATI identity of an organization', () => {
  it('is set on create, shown wherever the organization is, changed and cleared by the org_admin', async () => {
    const user = await registerUser(t.app);
    const created = await call(t.app, 'POST', '/orgs', {
      as: user,
      body: { name: 'Aid Org', code: uniqueCode(), iatiRef: 'GB-CHC-1234567', iatiOrgType: '22' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ iatiRef: 'GB-CHC-1234567', iatiOrgType: '22' });
    const orgId = created.body.id as string;

    const changed = await call(t.app, 'PATCH', `/orgs/${orgId}`, {
      as: user,
      body: { iatiRef: 'XM-DAC-41114', iatiOrgType: '40' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ iatiRef: 'XM-DAC-41114', iatiOrgType: '40', name: 'Aid Org' });
    expect((await call(t.app, 'GET', `/orgs/${orgId}`, { as: user })).body).toMatchObject({
      iatiRef: 'XM-DAC-41114',
      iatiOrgType: '40',
    });
    expect((await call(t.app, 'GET', '/orgs', { as: user })).body).toEqual([
      expect.objectContaining({ id: orgId, iatiRef: 'XM-DAC-41114', iatiOrgType: '40', role: 'org_admin' }),
    ]);

    const cleared = await call(t.app, 'PATCH', `/orgs/${orgId}`, { as: user, body: { iatiRef: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ iatiRef: null, iatiOrgType: '40' });
  });

  it('accepts identifiers of the usual registration agencies', async () => {
    for (const iatiRef of [
      'GB-CHC-1234567',
      'XM-DAC-41114',
      'US-EIN-12-3456789',
      'XI-IATI-EC_DEVCO',
      'NL-KVK-41177588',
    ]) {
      const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { as: team.admin, body: { iatiRef } });
      expect([res.status, res.body.iatiRef]).toEqual([200, iatiRef]);
    }
  });

  it('refuses identifiers IATI forbids and types outside the OrganisationType code list with 400', async () => {
    for (const iatiRef of ['GB CHC 1', 'GB-CHC/1', 'GB-CHC-1&2', 'GB|1', 'GB-1?', '-GB-1', 'X', 'é-1']) {
      const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { as: team.admin, body: { iatiRef } });
      expect(res.status).toBe(400);
      expect(res.body.message).toEqual([
        iatiRef.length < 2
          ? 'iatiRef must be at least 2 characters'
          : 'iatiRef must be letters, digits, dots, underscores, colons or dashes, starting and ending with a letter or digit',
      ]);
    }
    const long = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { iatiRef: `GB-${'1'.repeat(98)}` },
    });
    expect(long.body.message).toEqual(['iatiRef must be at most 100 characters']);

    const type = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { iatiOrgType: '99' },
    });
    expect(type.status).toBe(400);
    expect(type.body.message).toEqual([
      'iatiOrgType must be one of 10, 11, 15, 21, 22, 23, 24, 30, 40, 60, 70, 71, 72, 73, 80, 90',
    ]);
    const nullType = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
      as: team.admin,
      body: { iatiOrgType: null },
    });
    expect(nullType.status).toBe(400);

    const onCreate = await call(t.app, 'POST', '/orgs', {
      as: team.viewer,
      body: { name: 'X', code: uniqueCode(), iatiRef: null, iatiOrgType: 21 },
    });
    expect(onCreate.status).toBe(400);
    expect(onCreate.body.message).toEqual(
      expect.arrayContaining(['iatiRef must be a string', 'iatiOrgType must be a string']),
    );
  });

  it('is changed by the org_admin only', async () => {
    for (const user of [team.officer, team.reporter, team.viewer, team.outsider]) {
      const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, {
        as: user,
        body: { iatiRef: 'GB-CHC-666' },
      });
      expect(res.body).toEqual(refusedTo(team, user, ADMINS));
    }
    const res = await call(t.app, 'PATCH', `/orgs/${team.org.id}`, { body: { iatiRef: 'GB-CHC-666' } });
    expect(res.status).toBe(401);
  });
});
