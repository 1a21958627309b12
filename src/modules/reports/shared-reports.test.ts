import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../../../test/helpers/app.js';
import { createOrg, createProject, registerUser } from '../../../test/helpers/factories.js';
import { PNG } from '../../../test/helpers/files.js';
import { badRequest, call, expectError, MISSING_ID, notFoundBody } from '../../../test/helpers/http.js';
import {
  createDonorReport,
  donorReportScene,
  donorReportsUrl,
  donorReportUrl,
  publicAttachmentUrl,
  publicReportUrl,
} from '../../../test/helpers/reports.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const scene = donorReportScene(() => ({ t, team }));
const publicRead = (token: string) => call(t.app, 'GET', publicReportUrl(token));
const download = (token: string, attachmentId: string) =>
  call(t.app, 'GET', publicAttachmentUrl(token, attachmentId));

/** A shared report of a project with two PNGs attached before it was made. */
async function sharedWithFiles() {
  const s = await scene.simpleProject();
  const well = await scene.attachPng(s.project.id, 'well.png');
  const pump = await scene.attachPng(s.project.id, 'pump.png');
  const report = await scene.reportOf(s.project.id);
  const { shareToken } = await scene.share(report.id);
  return { s, well, pump, report, token: shareToken };
}

describe('GET /reports/share/:token', () => {
  it('returns, without a session, the report its editors read; attachments link through the share', async () => {
    const { well, pump, report, token } = await sharedWithFiles();
    const authed = await scene.read(report.id);
    expect(authed.attachments.map((a) => [a.id, a.downloadUrl])).toEqual(
      [well, pump].map((a) => [a.id, `/orgs/${team.org.id}/attachments/${a.id}/download`]),
    );
    const expected = {
      ...authed,
      attachments: authed.attachments.map((a) => ({
        ...a,
        downloadUrl: `/reports/share/${token}/attachments/${a.id}`,
      })),
    };
    const res = await publicRead(token);
    expect([res.status, res.body]).toEqual([200, expected]);
    const upper = await publicRead(token.toUpperCase());
    expect([upper.status, upper.body]).toEqual([200, expected]);
  });

  it('answers 404 Report not found for an unknown, malformed or never-issued token', async () => {
    const { report } = await sharedWithFiles();
    for (const token of ['not-a-token', MISSING_ID, report.id, 'x'.repeat(200), '%20']) {
      expectError(await publicRead(token), notFoundBody('Report'));
    }
  });
});

describe('GET /reports/share/:token/attachments/:attachmentId', () => {
  it('serves the bytes of an attachment listed in the shared report', async () => {
    const { well, token } = await sharedWithFiles();
    const res = await download(token, well.id);
    expect(res.status).toBe(200);
    expect(res.response.rawPayload.equals(PNG)).toBe(true);
    expect([
      res.headers['content-type'],
      res.headers['content-length'],
      res.headers['content-disposition'],
    ]).toEqual(['image/png', String(PNG.length), 'attachment; filename="well.png"']);
  });

  it('answers 404 for a file not listed in the report, of another project, or deleted since', async () => {
    const { s, well, pump, token } = await sharedWithFiles();
    const sibling = await scene.newProject('Sibling');
    const elsewhere = await scene.attachPng(sibling.id, 'sibling.png');
    const later = await scene.attachPng(s.project.id, 'later.png');
    for (const id of [elsewhere.id, later.id, MISSING_ID]) {
      expectError(await download(token, id), notFoundBody('Attachment'));
    }
    expectError(await download(token, 'a-1'), badRequest('attachmentId must be a UUID'));

    const removed = await call(t.app, 'DELETE', `/orgs/${team.org.id}/attachments/${pump.id}`, {
      as: team.officer,
    });
    expect(removed.status).toBe(204);
    expectError(await download(token, pump.id), notFoundBody('Attachment'));
    expect((await download(token, well.id)).status).toBe(200);
  });

  it('answers 404 Report not found once the link is revoked, or for a token that is not a link', async () => {
    const { report, well, token } = await sharedWithFiles();
    expectError(await download(MISSING_ID, well.id), notFoundBody('Report'));
    expectError(await download('nope', well.id), notFoundBody('Report'));
    const revoked = await call(t.app, 'DELETE', donorReportUrl(team.org.id, report.id, 'share'), {
      as: team.admin,
    });
    expect(revoked.status).toBe(204);
    expectError(await download(token, well.id), notFoundBody('Report'));
  });
});

describe('rate limits of the shared-report routes (DECISIONS.md section 12)', () => {
  it('spend their own bucket of PUBLIC_RATE_LIMIT_MAX, apart from the general one', async () => {
    // Counted in memory: with REDIS_URL every test file would spend one shared count for 127.0.0.1.
    const limited = await buildTestApp({ PUBLIC_RATE_LIMIT_MAX: '7', RATE_LIMIT_MAX: '50', REDIS_URL: '' });
    try {
      const admin = await registerUser(limited.app);
      const org = await createOrg(limited.app, admin);
      const project = await createProject(limited.database.db, org.id);
      const report = await createDonorReport(limited.app, admin, org.id, {
        projectId: project.id,
        startDate: '2026-01-01',
        endDate: '2026-03-31',
      });
      const shared = await call(limited.app, 'PATCH', donorReportUrl(org.id, report.id, 'share'), {
        as: admin,
      });
      expect(shared.status).toBe(200);
      const token = shared.body.shareToken as string;

      const read = await call(limited.app, 'GET', publicReportUrl(token));
      expect([read.status, read.headers['x-ratelimit-limit'], read.headers['x-ratelimit-remaining']]).toEqual(
        [200, '7', '6'],
      );
      const file = await call(limited.app, 'GET', publicAttachmentUrl(token, MISSING_ID));
      expect([file.status, file.headers['x-ratelimit-limit'], file.headers['x-ratelimit-remaining']]).toEqual(
        [404, '7', '5'],
      );
      const general = await call(limited.app, 'GET', donorReportsUrl(org.id), { as: admin });
      expect([general.status, general.headers['x-ratelimit-limit']]).toEqual([200, '50']);
    } finally {
      await limited.close();
    }
  });
});
