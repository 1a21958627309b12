import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { assignProject, createProject, type TestUser } from '../../../test/helpers/factories.js';
import {
  MISSING_ID,
  badRequest,
  call,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { multipart, PDF, PNG, type Part } from '../../../test/helpers/files.js';
import { attachments } from './files.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const listUrl = (projectId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/projects/${projectId}/attachments`;

const upload = (projectId: string, parts: Part[], as: TestUser | null = team.officer) =>
  call(t.app, 'POST', listUrl(projectId), { as, ...multipart(parts) });

const pdfPart = (fileName = 'report.pdf'): Part => ({
  name: 'file',
  value: PDF,
  fileName,
  contentType: 'application/pdf',
});

function storedFiles(): string[] {
  const root = path.join(t.config.dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

const rowsOf = (projectId: string) =>
  t.database.db.select().from(attachments).where(eq(attachments.projectId, projectId));

describe('POST /orgs/:orgId/projects/:projectId/attachments', () => {
  it('stores a PDF (201) with its title, and serves the same bytes back', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await upload(project.id, [{ name: 'title', value: 'Quarterly report' }, pdfPart()]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: project.id,
      title: 'Quarterly report',
      fileName: 'report.pdf',
      contentType: 'application/pdf',
      size: PDF.length,
      createdAt: expect.stringMatching(TIMESTAMP),
      downloadUrl: `/orgs/${team.org.id}/attachments/${res.body.id}/download`,
    });
    const [row] = await rowsOf(project.id);
    expect(row).toMatchObject({ uploadedBy: team.officer.id });
    expect(storedFiles()).toContain(row!.storageKey);
    expect(row!.storageKey).not.toContain('report');

    const download = await call(t.app, 'GET', res.body.downloadUrl, { as: team.viewer });
    expect(download.status).toBe(200);
    expect(download.response.rawPayload.equals(PDF)).toBe(true);
    expect(download.headers['content-type']).toBe('application/pdf');
    expect(download.headers['content-disposition']).toBe('attachment; filename="report.pdf"');
  });

  it('decides the type by content: a PNG under any name, title defaulting to the file name', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const res = await upload(
      project.id,
      [
        {
          name: 'file',
          value: PNG,
          fileName: 'C:\\photos\\site visit.bin',
          contentType: 'application/octet-stream',
        },
      ],
      team.admin,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'site visit.bin',
      fileName: 'site visit.bin',
      contentType: 'image/png',
      size: PNG.length,
    });
  });

  it('accepts a CSV declared as such when it is UTF-8 text without NUL; refuses other bytes named .csv', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const csv = 'village,households\nKisumu,120\nNyeri,85\n';
    const ok = await upload(project.id, [
      { name: 'file', value: csv, fileName: 'households.csv', contentType: 'text/csv' },
    ]);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ contentType: 'text/csv', size: Buffer.byteLength(csv) });

    const before = storedFiles().length;
    for (const value of [Buffer.from([0x61, 0x2c, 0x00, 0x62]), Buffer.from([0x61, 0xff, 0xfe, 0x0a])]) {
      const res = await upload(project.id, [
        { name: 'file', value, fileName: 'data.csv', contentType: 'text/csv' },
      ]);
      expect([res.status, res.body.error]).toEqual([415, 'Unsupported Media Type']);
    }
    // Text not called CSV is not a CSV.
    const plain = await upload(project.id, [
      { name: 'file', value: csv, fileName: 'notes.txt', contentType: 'text/plain' },
    ]);
    expect(plain.status).toBe(415);
    expect(storedFiles().length).toBe(before);
    expect(await rowsOf(project.id)).toHaveLength(1);
  });

  it('refuses a text file renamed .pdf with 415 and keeps nothing', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const before = storedFiles().length;
    const res = await upload(project.id, [
      {
        name: 'file',
        value: 'just some text, honestly',
        fileName: 'invoice.pdf',
        contentType: 'application/pdf',
      },
    ]);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      statusCode: 415,
      message: 'Unsupported file type; accepted: PDF, JPEG, PNG, WebP, DOCX, XLSX, CSV',
      error: 'Unsupported Media Type',
      code: 'unsupported_media_type',
    });
    expect(storedFiles().length).toBe(before);
    expect(await rowsOf(project.id)).toEqual([]);
  });

  it('takes files above the 1 MiB JSON body limit, refuses one over 10 MiB with 413 and keeps nothing', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const fiveMiB = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)]);
    const accepted = await upload(project.id, [{ name: 'file', value: fiveMiB, fileName: 'scan.pdf' }]);
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ size: fiveMiB.length, contentType: 'application/pdf' });
    await t.database.db.delete(attachments).where(eq(attachments.projectId, project.id));
    const before = storedFiles().length;
    const big = Buffer.concat([PDF, Buffer.alloc(10 * 1024 * 1024)]);
    const res = await upload(project.id, [{ name: 'file', value: big, fileName: 'big.pdf' }]);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: 'file must not be larger than 10 MiB',
      error: 'Payload Too Large',
      code: 'payload_too_large',
    });
    expect(storedFiles().length).toBe(before);
    expect(await rowsOf(project.id)).toEqual([]);
  });

  it('answers 415 to a body that is not multipart and 400 to a form without a file or with bad fields', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const json = await call(t.app, 'POST', listUrl(project.id), { as: team.officer, body: { title: 'x' } });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({
      statusCode: 415,
      message: 'Unsupported content type; send multipart/form-data',
      error: 'Unsupported Media Type',
      code: 'unsupported_media_type',
    });
    const cases: [Part[], string[]][] = [
      [[{ name: 'title', value: 'No file' }], ['file is required']],
      [[{ name: 'file', value: 'not a file part' }], ['file must be a file, not a text field']],
      [[pdfPart(), { name: 'title', value: '   ' }], ['title should not be empty']],
      [[pdfPart(), { name: 'title', value: 'x'.repeat(201) }], ['title must be at most 200 characters']],
      [[pdfPart(), { name: 'projectId', value: project.id }], ['property projectId should not exist']],
    ];
    const before = storedFiles().length;
    for (const [parts, messages] of cases) {
      const res = await upload(project.id, parts);
      expect([res.status, res.body]).toEqual([400, badRequest(...messages)]);
    }
    const twoFiles = await upload(project.id, [pdfPart('a.pdf'), pdfPart('b.pdf')]);
    expect([twoFiles.status, twoFiles.body]).toEqual([400, badRequest('file must be a single file')]);
    expect(storedFiles().length).toBe(before);
    expect(await rowsOf(project.id)).toEqual([]);
  });

  it('answers 404 for a project of another organization or a missing one, 400 for a bad id', async () => {
    const foreign = await createProject(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      const res = await upload(id, [pdfPart()], team.admin);
      expect([res.status, res.body]).toEqual([404, notFoundBody('Project')]);
    }
    const bad = await call(t.app, 'POST', listUrl('nope'), { as: team.admin, ...multipart([pdfPart()]) });
    expect(bad.body).toEqual(badRequest('projectId must be a UUID'));
    expect(await rowsOf(foreign.id)).toEqual([]);
  });

  it('is for org_admin and me_officer: others 403 (even an assigned reporter), no session 401', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      const res = await upload(project.id, [pdfPart()], user);
      expect([res.status, res.body]).toEqual([403, refusedTo(team, user, MANAGERS)]);
    }
    const anonymous = await upload(project.id, [pdfPart()], null);
    expect([anonymous.status, anonymous.body]).toEqual([401, UNAUTHORIZED]);
    expect(await rowsOf(project.id)).toEqual([]);
  });
});

describe('a client that leaves mid-upload', () => {
  it('leaves no partial file or row behind and does not block later uploads', async () => {
    const project = await createProject(t.database.db, team.org.id);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const before = storedFiles().length;
    const boundary = 'leaving';
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${listUrl(project.id)} HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${team.officer.token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.pdf"\r\n\r\n`,
    );
    socket.write(Buffer.concat([PDF, Buffer.alloc(256 * 1024)]));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(storedFiles().filter((name) => name.endsWith('.part'))).toHaveLength(1);
    socket.destroy();

    for (let i = 0; i < 50 && storedFiles().length !== before; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(storedFiles().length).toBe(before);
    expect(await rowsOf(project.id)).toEqual([]);
    const next = await upload(project.id, [pdfPart()]);
    expect(next.status).toBe(201);
  });
});
