import { existsSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject } from '../../../test/helpers/factories.js';
import { multipart, PDF, PNG } from '../../../test/helpers/files.js';
import {
  MISSING_ID,
  badRequest,
  call,
  notFoundBody,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  notAssigned,
  refusedTo,
} from '../../../test/helpers/http.js';
import { projects } from '../projects/projects.tables.js';
import { attachments } from './files.tables.js';
import { createFileStorage } from '../../storage/configured-storage.js';
import { contentDisposition, sanitizeFileName } from '../../storage/file-storage.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const listUrl = (projectId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/attachments`;
const oneUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/attachments/${id}`;

async function attach(projectId: string, fileName = 'report.pdf', value: Buffer = PDF, orgId = team.org.id) {
  const as = orgId === team.org.id ? team.officer : team.outsider;
  const res = await call(t.app, 'POST', listUrl(projectId, orgId), {
    as,
    ...multipart([{ name: 'file', value, fileName }]),
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string; downloadUrl: string };
}

async function storedPath(id: string) {
  const [row] = await t.database.db.select().from(attachments).where(eq(attachments.id, id));
  const key = row!.storageKey;
  return path.join(t.config.dataDir, 'files', key.slice(0, 2), key);
}

describe('GET /orgs/:orgId/projects/:projectId/attachments', () => {
  it('lists newest first (ties by id), plain or paged', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const other = await createProject(t.database.db, team.org.id);
    await attach(other.id, 'other.pdf');
    const first = await attach(project.id, 'first.pdf');
    const second = await attach(project.id, 'second.png', PNG);
    const third = await attach(project.id, 'third.pdf');
    await t.database.db
      .update(attachments)
      .set({ createdAt: new Date('2026-05-01T00:00:00.000Z') })
      .where(eq(attachments.projectId, project.id));
    const expected = [first, second, third].sort((a, b) => b.id.localeCompare(a.id));
    const res = await call(t.app, 'GET', listUrl(project.id), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expected.map((a) => ({ ...a, createdAt: '2026-05-01T00:00:00.000Z' })));

    const paged = await call(t.app, 'GET', `${listUrl(project.id)}?page=2&limit=2`, { as: team.admin });
    expect(paged.body).toEqual({
      data: [expect.objectContaining({ id: expected[2]!.id })],
      meta: { total: 3, page: 2, limit: 2, totalPages: 2 },
    });
  });

  it('lets a reporter read assigned projects only; outsiders 403, no session 401; other org 404', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await attach(project.id);
    const refused = await call(t.app, 'GET', listUrl(project.id), { as: team.reporter });
    expect([refused.status, refused.body]).toEqual([403, notAssigned(ALL_ROLES)]);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const allowed = await call(t.app, 'GET', listUrl(project.id), { as: team.reporter });
    expect([allowed.status, allowed.body.length]).toEqual([200, 1]);

    const outsider = await call(t.app, 'GET', listUrl(project.id), { as: team.outsider });
    expect([outsider.status, outsider.body]).toEqual([403, notAMember(ALL_ROLES)]);
    const anonymous = await call(t.app, 'GET', listUrl(project.id));
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    const res = await call(t.app, 'GET', listUrl(foreign.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Project')]);
  });
});

describe('GET /orgs/:orgId/attachments/:id/download', () => {
  it('streams the bytes with their type and an RFC 5987 name for non-ASCII file names', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const png = await attach(project.id, 'Rapport été final.png', PNG);
    const res = await call(t.app, 'GET', png.downloadUrl, { as: team.admin });
    expect(res.status).toBe(200);
    expect(res.response.rawPayload.equals(PNG)).toBe(true);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(PNG.length));
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Rapport _t_ final.png"; filename*=UTF-8''Rapport%20%C3%A9t%C3%A9%20final.png`,
    );
  });

  it('lets a reporter download from assigned projects only; other org or missing 404; 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const file = await attach(project.id);
    const refused = await call(t.app, 'GET', file.downloadUrl, { as: team.reporter });
    expect([refused.status, refused.body]).toEqual([403, notAssigned(ALL_ROLES)]);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    expect((await call(t.app, 'GET', file.downloadUrl, { as: team.reporter })).status).toBe(200);
    const outsider = await call(t.app, 'GET', file.downloadUrl, { as: team.outsider });
    expect([outsider.status, outsider.body]).toEqual([403, notAMember(ALL_ROLES)]);
    const anonymous = await call(t.app, 'GET', file.downloadUrl);
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);

    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreign = await attach(foreignProject.id, 'theirs.pdf', PDF, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await call(t.app, 'GET', `${oneUrl(id)}/download`, { as: team.admin });
      expect([res.status, res.body]).toEqual([404, notFoundBody('Attachment')]);
    }
    const bad = await call(t.app, 'GET', `${oneUrl('nope')}/download`, { as: team.admin });
    expect(bad.body).toEqual(badRequest('id must be a UUID'));
  });
});

describe('DELETE /orgs/:orgId/attachments/:id', () => {
  it('removes the row and the file (204), then 404', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const file = await attach(project.id);
    const stored = await storedPath(file.id);
    expect(existsSync(stored)).toBe(true);
    const res = await call(t.app, 'DELETE', oneUrl(file.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([204, null]);
    expect(existsSync(stored)).toBe(false);
    expect(await t.database.db.select().from(attachments).where(eq(attachments.id, file.id))).toEqual([]);
    const again = await call(t.app, 'DELETE', oneUrl(file.id), { as: team.admin });
    expect([again.status, again.body]).toEqual([404, notFoundBody('Attachment')]);
    const download = await call(t.app, 'GET', file.downloadUrl, { as: team.admin });
    expect(download.status).toBe(404);
  });

  it('removes the files of a deleted project, and of the projects of a deleted program', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const stored = await storedPath((await attach(project.id)).id);
    expect(
      (await call(t.app, 'DELETE', `/orgs/${team.org.id}/projects/${project.id}`, { as: team.admin })).status,
    ).toBe(204);
    expect(existsSync(stored)).toBe(false);

    const other = await createProject(t.database.db, team.org.id);
    const otherStored = await storedPath((await attach(other.id)).id);
    const [row] = await t.database.db.select().from(projects).where(eq(projects.id, other.id));
    const res = await call(t.app, 'DELETE', `/orgs/${team.org.id}/programs/${row!.programId}`, {
      as: team.admin,
    });
    expect(res.status).toBe(204);
    expect(existsSync(otherStored)).toBe(false);
  });

  it('answers 404 for another organization; others 403, no session 401', async () => {
    const foreignProject = await createProject(t.database.db, team.outsiderOrg.id);
    const foreign = await attach(foreignProject.id, 'theirs.pdf', PDF, team.outsiderOrg.id);
    const res = await call(t.app, 'DELETE', oneUrl(foreign.id), { as: team.admin });
    expect([res.status, res.body]).toEqual([404, notFoundBody('Attachment')]);
    expect(existsSync(await storedPath(foreign.id))).toBe(true);

    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const file = await attach(project.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const refused = await call(t.app, 'DELETE', oneUrl(file.id), { as: user });
      expect([refused.status, refused.body]).toEqual([403, refusedTo(team, user, MANAGERS)]);
    }
    const anonymous = await call(t.app, 'DELETE', oneUrl(file.id));
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
    expect(existsSync(await storedPath(file.id))).toBe(true);
  });
});

describe('storage helpers', () => {
  it('refuses keys that are not generated UUIDs, so no path leaves the files directory', async () => {
    const storage = createFileStorage(t.config, t.database);
    for (const key of ['../../etc/passwd', 'report.pdf', '']) {
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Invalid storage key');
      await expect(storage.get(key)).rejects.toThrow('Invalid storage key');
    }
  });

  it('sanitises file names for storage and headers', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('a\u0000b\r\n"c".pdf')).toBe('abc.pdf');
    expect(sanitizeFileName('..')).toBe('file');
    expect(contentDisposition('plain.csv')).toBe('attachment; filename="plain.csv"');
  });
});
