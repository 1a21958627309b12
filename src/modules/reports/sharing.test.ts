import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  badRequest,
  call,
  expectError,
  expectViolations,
  MISSING_ID,
  notFoundBody,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { donorReportScene, donorReportUrl, publicReportUrl, UUID_V4 } from '../../../test/helpers/reports.js';
import { reports } from './reports.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const scene = donorReportScene(() => ({ t, team }));

const shareCall = (id: string, body?: unknown, as: TestUser | null = team.officer) =>
  call(t.app, 'PATCH', donorReportUrl(team.org.id, id, 'share'), { as, body });
const regenerate = (id: string, as: TestUser | null = team.officer) =>
  call(t.app, 'PATCH', donorReportUrl(team.org.id, id, 'share/regenerate'), { as });
const revoke = (id: string, as: TestUser | null = team.officer) =>
  call(t.app, 'DELETE', donorReportUrl(team.org.id, id, 'share'), { as });
const publicRead = (token: string) => call(t.app, 'GET', publicReportUrl(token));
const link = (shareToken: string, shareExpiresAt: string | null = null) => ({
  shareToken,
  shareUrl: `http://app.test/r/${shareToken}`,
  shareExpiresAt,
});
const NOT_SHARED = {
  statusCode: 409,
  message: 'Report is not shared',
  error: 'Conflict',
  code: 'invalid_transition' as const,
};

async function newReport() {
  const s = await scene.simpleProject();
  return scene.reportOf(s.project.id);
}

describe('PATCH /orgs/:orgId/reports/:id/share', () => {
  it('opens a link on a draft: a UUIDv4 token, its shareUrl, no expiry; the body may be omitted', async () => {
    const report = await newReport();
    const res = await shareCall(report.id);
    expect([res.status, res.body.shareToken]).toEqual([200, expect.stringMatching(UUID_V4)]);
    expect(res.body).toEqual(link(res.body.shareToken));
    expect(await scene.read(report.id)).toEqual({ ...report, ...res.body, updatedAt: expect.any(String) });
    expect((await publicRead(res.body.shareToken)).status).toBe(200);

    const again = await shareCall(report.id, {}, team.admin);
    expect([again.status, again.body]).toEqual([200, res.body]);
  });

  it('takes a future expiresAt; an active link keeps its token, a sent expiresAt replaces the expiry', async () => {
    const report = await newReport();
    const first = await shareCall(report.id, { expiresAt: '2030-01-01T00:00:00+02:00' });
    const token = first.body.shareToken as string;
    expect([first.status, first.body]).toEqual([200, link(token, '2029-12-31T22:00:00.000Z')]);
    expect(token).toMatch(UUID_V4);

    const later = await shareCall(report.id, { expiresAt: '2031-06-01T12:00:00.000Z' });
    expect([later.status, later.body]).toEqual([200, link(token, '2031-06-01T12:00:00.000Z')]);
    const untouched = await shareCall(report.id);
    expect([untouched.status, untouched.body]).toEqual([200, link(token, '2031-06-01T12:00:00.000Z')]);
    const forever = await shareCall(report.id, { expiresAt: null });
    expect([forever.status, forever.body]).toEqual([200, link(token)]);
    expect(await scene.read(report.id)).toMatchObject(link(token));
  });

  it('refuses a past or malformed expiresAt and unknown properties with 400, changing nothing', async () => {
    const report = await newReport();
    const cases: [unknown, string[]][] = [
      [{ expiresAt: '2020-01-01T00:00:00.000Z' }, ['expiresAt must be in the future']],
      [{ expiresAt: 'tomorrow' }, ['expiresAt must be a valid ISO 8601 timestamp']],
      [{ expiresAt: 5 }, ['expiresAt must be a string']],
      [{ shareToken: MISSING_ID }, ['property shareToken should not exist']],
    ];
    for (const [body, messages] of cases) expectViolations(await shareCall(report.id, body), ...messages);
    expect(await scene.read(report.id)).toEqual(report);
  });

  it('gives an expired link a new token, so the old link stays dead', async () => {
    const report = await newReport();
    const old = await scene.share(report.id, { expiresAt: '2030-01-01T00:00:00.000Z' });
    await t.database.db
      .update(reports)
      .set({ shareExpiresAt: new Date(Date.now() - 60_000) })
      .where(eq(reports.id, report.id));
    expectError(await publicRead(old.shareToken), notFoundBody('Report'));

    const fresh = await shareCall(report.id);
    expect([fresh.status, fresh.body.shareToken]).toEqual([200, expect.stringMatching(UUID_V4)]);
    expect(fresh.body).toEqual(link(fresh.body.shareToken));
    expect(fresh.body.shareToken).not.toBe(old.shareToken);
    expectError(await publicRead(old.shareToken), notFoundBody('Report'));
    expect((await publicRead(fresh.body.shareToken)).status).toBe(200);
  });

  it('stops answering once shareExpiresAt has passed', async () => {
    const report = await newReport();
    const expiresAt = new Date(Date.now() + 1500);
    const shared = await scene.share(report.id, { expiresAt: expiresAt.toISOString() });
    expect(shared.shareExpiresAt).toBe(expiresAt.toISOString());
    expect((await publicRead(shared.shareToken)).status).toBe(200);
    while (Date.now() <= expiresAt.getTime() + 50) await sleep(100);
    expectError(await publicRead(shared.shareToken), notFoundBody('Report'));
    expect(await scene.read(report.id)).toMatchObject(link(shared.shareToken, expiresAt.toISOString()));
  });
});

describe('PATCH /orgs/:orgId/reports/:id/share/regenerate', () => {
  it('replaces the token: the old link answers 404 at once, the expiry stays', async () => {
    const report = await newReport();
    const old = await scene.share(report.id, { expiresAt: '2030-01-01T00:00:00.000Z' });
    const res = await regenerate(report.id, team.admin);
    expect([res.status, res.body.shareToken]).toEqual([200, expect.stringMatching(UUID_V4)]);
    expect(res.body).toEqual(link(res.body.shareToken, '2030-01-01T00:00:00.000Z'));
    expect(res.body.shareToken).not.toBe(old.shareToken);
    expectError(await publicRead(old.shareToken), notFoundBody('Report'));
    expect((await publicRead(res.body.shareToken)).status).toBe(200);
    expect(await scene.read(report.id)).toMatchObject(res.body);
  });

  it('answers 409 for a report never shared or revoked', async () => {
    const report = await newReport();
    expectError(await regenerate(report.id), NOT_SHARED);
    await scene.share(report.id);
    await revoke(report.id);
    expectError(await regenerate(report.id), NOT_SHARED);
  });
});

describe('DELETE /orgs/:orgId/reports/:id/share', () => {
  it('revokes the link (204): the public report answers 404, the token is null; again is a no-op', async () => {
    const report = await newReport();
    const shared = await scene.share(report.id, { expiresAt: '2030-01-01T00:00:00.000Z' });
    const res = await revoke(report.id);
    expect([res.status, res.body]).toEqual([204, null]);
    expectError(await publicRead(shared.shareToken), notFoundBody('Report'));
    expect(await scene.read(report.id)).toEqual({ ...report, updatedAt: expect.any(String) });
    const again = await revoke(report.id, team.admin);
    expect([again.status, again.body]).toEqual([204, null]);

    const reopened = await scene.share(report.id);
    expect(reopened.shareToken).not.toBe(shared.shareToken);
    expectError(await publicRead(shared.shareToken), notFoundBody('Report'));
  });
});

describe('share routes: roles and ids', () => {
  const ROUTES = [
    ['PATCH share', 'PATCH', 'share'],
    ['PATCH share/regenerate', 'PATCH', 'share/regenerate'],
    ['DELETE share', 'DELETE', 'share'],
  ] as const;

  it.each(ROUTES)(
    '%s: viewer and reporter 403, outsider 403, 401, 404, 400',
    async (_label, method, action) => {
      const s = await scene.simpleProject();
      await assignProject(t.database.db, team.org.id, s.project.id, team.reporter.id);
      const report = await scene.reportOf(s.project.id);
      await scene.share(report.id);
      const before = await scene.read(report.id);
      const url = (id: string, orgId = team.org.id) => donorReportUrl(orgId, id, action);
      for (const user of [team.viewer, team.reporter, team.outsider]) {
        expectError(await call(t.app, method, url(report.id), { as: user }), refusedTo(team, user, MANAGERS));
      }
      expectError(await call(t.app, method, url(report.id)), UNAUTHORIZED);
      expectError(
        await call(t.app, method, url(report.id, team.outsiderOrg.id), { as: team.outsider }),
        notFoundBody('Report'),
      );
      expectError(await call(t.app, method, url(MISSING_ID), { as: team.admin }), notFoundBody('Report'));
      expectError(await call(t.app, method, url('r-1'), { as: team.admin }), badRequest('id must be a UUID'));
      expect(await scene.read(report.id)).toEqual(before);
    },
  );
});
