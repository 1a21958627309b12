/**
 * FILE_STORAGE=database through HTTP: attachments and form file answers kept in the database, nothing in
 * DATA_DIR/files. On PostgreSQL (TEST_DATABASE_URL) also two instances on one database, each with a
 * DATA_DIR of its own: what one stores, the other serves.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedFiles } from '../src/storage/stored-files.tables.js';
import { buildTestApp, maintenanceQuery, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { multipart, PDF } from './helpers/files.js';
import { publishedForm, submissionFileUrl, submitUrl } from './helpers/forms.js';
import { call } from './helpers/http.js';

const testUrl = process.env.TEST_DATABASE_URL;
if (!testUrl)
  console.warn('shared-files.test.ts: two instances on one database need TEST_DATABASE_URL (skipped)');

/** A PDF of three chunks and a bit: its magic number first, then bytes of no meaning. */
const LARGE_PDF = Buffer.concat([PDF, randomBytes(3 * 256 * 1024 + 999)]);

async function attach(app: TestApp['app'], team: Team, projectId: string, value: Buffer) {
  const res = await call(app, 'POST', `/orgs/${team.org.id}/projects/${projectId}/attachments`, {
    as: team.officer,
    ...multipart([{ name: 'file', value, fileName: 'report.pdf', contentType: 'application/pdf' }]),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; size: number; downloadUrl: string };
}

async function submitFile(app: TestApp['app'], team: Team, projectId: string, value: Buffer) {
  const form = await publishedForm(app, team.officer, team.org.id, {
    projectId,
    fields: [{ type: 'file', label: 'Receipt', key: 'receipt' }],
  });
  const res = await call(app, 'POST', submitUrl(form.publicToken), {
    ...multipart([{ name: 'receipt', value, fileName: 'receipt.pdf', contentType: 'application/pdf' }]),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return submissionFileUrl(team.org.id, form.id, res.body.id as string, 'receipt');
}

async function download(app: TestApp['app'], team: Team, url: string): Promise<Buffer> {
  const res = await call(app, 'GET', url, { as: team.viewer });
  expect([res.status, res.headers['content-type']]).toEqual([200, 'application/pdf']);
  return res.response.rawPayload;
}

/** The files under DATA_DIR/files (none is expected with FILE_STORAGE=database). */
function filesOnDisk(t: TestApp): string[] {
  const root = path.join(t.config.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((folder) => readdirSync(path.join(root, folder)));
}

describe('FILE_STORAGE=database', () => {
  let t: TestApp;
  let team: Team;
  beforeAll(async () => {
    t = await buildTestApp({ FILE_STORAGE: 'database' });
    team = await createTeam(t.app, t.database.db);
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps an attachment and a form file answer in the database and serves them back', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const attachment = await attach(t.app, team, project.id, LARGE_PDF);
    expect(attachment.size).toBe(LARGE_PDF.length);
    expect((await download(t.app, team, attachment.downloadUrl)).equals(LARGE_PDF)).toBe(true);

    const fileUrl = await submitFile(t.app, team, project.id, PDF);
    expect((await download(t.app, team, fileUrl)).equals(PDF)).toBe(true);
    expect(filesOnDisk(t)).toEqual([]);

    // Deleting the attachment removes its file from the database.
    const before = (await t.database.db.select({ n: count() }).from(storedFiles))[0]!.n;
    const removed = await call(t.app, 'DELETE', `/orgs/${team.org.id}/attachments/${attachment.id}`, {
      as: team.admin,
    });
    expect(removed.status).toBe(204);
    expect((await t.database.db.select({ n: count() }).from(storedFiles))[0]!.n).toBe(before - 1);
    expect((await call(t.app, 'GET', attachment.downloadUrl, { as: team.viewer })).status).toBe(404);
  });

  it('keeps nothing of a refused upload', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const before = await t.database.db.select({ key: storedFiles.key }).from(storedFiles);
    const res = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${project.id}/attachments`, {
      as: team.officer,
      ...multipart([{ name: 'file', value: randomBytes(300_000), fileName: 'noise.bin' }]),
    });
    expect(res.status).toBe(415);
    expect(await t.database.db.select({ key: storedFiles.key }).from(storedFiles)).toEqual(before);
  });
});

describe.skipIf(!testUrl)('two instances on one PostgreSQL with FILE_STORAGE=database', () => {
  let name: string;
  let first: TestApp;
  let second: TestApp;
  let team: Team;
  beforeAll(async () => {
    name = `mel_files_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await maintenanceQuery(
      testUrl!,
      `CREATE DATABASE ${name} TEMPLATE ${new URL(testUrl!).pathname.slice(1)}`,
    );
    const own = new URL(testUrl!);
    own.pathname = `/${name}`;
    // Each opens the database itself (a pool of its own) and has a DATA_DIR of its own.
    const env = { DATABASE_URL: own.toString(), FILE_STORAGE: 'database' };
    first = await buildTestApp(env);
    second = await buildTestApp(env);
    expect(first.config.dataDir).not.toBe(second.config.dataDir);
    team = await createTeam(first.app, first.database.db);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    if (name) await maintenanceQuery(testUrl!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('serves through one instance the files uploaded through the other, byte for byte', async () => {
    const project = await createProject(first.database.db, team.org.id);
    const attachment = await attach(first.app, team, project.id, LARGE_PDF);
    expect((await download(second.app, team, attachment.downloadUrl)).equals(LARGE_PDF)).toBe(true);

    const fileUrl = await submitFile(second.app, team, project.id, PDF);
    expect((await download(first.app, team, fileUrl)).equals(PDF)).toBe(true);
    expect([...filesOnDisk(first), ...filesOnDisk(second)]).toEqual([]);

    // Deleted through the second, gone for the first.
    const removed = await call(second.app, 'DELETE', `/orgs/${team.org.id}/attachments/${attachment.id}`, {
      as: team.admin,
    });
    expect(removed.status).toBe(204);
    expect((await call(first.app, 'GET', attachment.downloadUrl, { as: team.viewer })).status).toBe(404);
    // The database is this test's own: only the form's file is left in it.
    expect((await first.database.db.select({ n: count() }).from(storedFiles))[0]!.n).toBe(1);
  });
});
