import { existsSync, readdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../src/db/client.js';
import { attachments } from '../../src/modules/files/files.tables.js';
import { formSubmissionFiles, formSubmissions } from '../../src/modules/forms/forms.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createOrg, createProject, registerUser, type TestUser } from '../helpers/factories.js';
import { multipart, PDF, PNG, type Part } from '../helpers/files.js';
import { type FormJson, publishedForm, submitUrl } from '../helpers/forms.js';
import { call, type Call } from '../helpers/http.js';

/**
 * Finding 4: public form files filled the disk, with no quota. With tiny quotas (10 KiB a form, 30 KiB
 * an organization) a submission or an attachment that would pass one is refused with 507
 * `upload_quota_exceeded`, keeps nothing, and leaves no file behind.
 */
const FORM_QUOTA = '10KiB';
const ORG_QUOTA = '30KiB';
const KiB = 1024;
const TOKEN = 'scrape-token-0123456789abcdef';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ FORM_FILES_QUOTA: FORM_QUOTA, ORG_FILES_QUOTA: ORG_QUOTA, METRICS_TOKEN: TOKEN });
});
afterAll(() => t.close());

const FORM_FULL = {
  statusCode: 507,
  message: 'Stored files of this form would exceed its quota of 10 KiB',
  error: 'Insufficient Storage',
  code: 'upload_quota_exceeded',
};
const ORG_FULL = {
  statusCode: 507,
  message: 'Stored files of this organization would exceed its quota of 30 KiB',
  error: 'Insufficient Storage',
  code: 'upload_quota_exceeded',
};

const FIELDS = [
  { type: 'text', label: 'Name', key: 'name' },
  { type: 'file', label: 'Photo', key: 'photo' },
  { type: 'file', label: 'Receipt', key: 'receipt' },
];

/** A real PNG (or PDF) padded to exactly `size` bytes: its type is read from the start. */
const png = (size: number) => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
const pdf = (size: number) => Buffer.concat([PDF, Buffer.alloc(size - PDF.length)]);
const photo = (size: number): Part => ({ name: 'photo', value: png(size), fileName: 'p.png' });
const receipt = (size: number): Part => ({ name: 'receipt', value: png(size), fileName: 'r.png' });
const data: Part = { name: 'data', value: JSON.stringify({ answers: { name: 'Achieng' } }) };

interface Scene {
  admin: TestUser;
  org: { id: string };
  projectId: string;
}

async function scene(): Promise<Scene> {
  const admin = await registerUser(t.app);
  const org = await createOrg(t.app, admin);
  const project = await createProject(t.database.db, org.id);
  return { admin, org, projectId: project.id };
}

const formOf = (s: Scene) =>
  publishedForm(t.app, s.admin, s.org.id, { projectId: s.projectId, fields: FIELDS });

const submit = (form: FormJson, parts: Part[]) =>
  call(t.app, 'POST', submitUrl(form.publicToken), multipart(parts));

const attach = (s: Scene, size: number) =>
  call(t.app, 'POST', `/orgs/${s.org.id}/projects/${s.projectId}/attachments`, {
    as: s.admin,
    ...multipart([{ name: 'file', value: pdf(size), fileName: 'plan.pdf' }]),
  });

function expectStatus(res: Call, status: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
}

async function submissionsOf(formId: string): Promise<number> {
  const rows = await t.database.db
    .select({ id: formSubmissions.id })
    .from(formSubmissions)
    .where(eq(formSubmissions.formId, formId));
  return rows.length;
}

/** Every file on disk is the file of a stored row, and every stored row has its file. */
async function expectDiskMatchesRows() {
  const root = path.join(t.config.dataDir, 'files');
  const onDisk = existsSync(root)
    ? readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
    : [];
  const keys = await t.database.db.execute(sql`
    SELECT ${formSubmissionFiles.storageKey} AS key FROM ${formSubmissionFiles}
    UNION ALL SELECT ${attachments.storageKey} FROM ${attachments}`);
  expect(onDisk.sort()).toEqual(
    rowsOf<{ key: string }>(keys)
      .map((row) => row.key)
      .sort(),
  );
}

describe('finding 4: the form quota (FORM_FILES_QUOTA)', () => {
  it('refuses with 507 a submission whose files would pass it, storing nothing', async () => {
    const s = await scene();
    const form = await formOf(s);
    expectStatus(await submit(form, [data, photo(4 * KiB)]), 201);
    expectStatus(await submit(form, [data, photo(2 * KiB), receipt(2 * KiB)]), 201);
    // 8 KiB stored: 4 more would pass 10 KiB, by one file or by the two together.
    for (const parts of [
      [data, photo(4 * KiB)],
      [data, photo(2 * KiB), receipt(2 * KiB)],
      [photo(3 * KiB)],
    ]) {
      const refused = await submit(form, parts);
      expect([refused.status, refused.body]).toEqual([507, FORM_FULL]);
    }
    expect(await submissionsOf(form.id)).toBe(2);
    await expectDiskMatchesRows();
    // Exactly up to the quota is still taken.
    expectStatus(await submit(form, [data, photo(2 * KiB)]), 201);
    expect(await submissionsOf(form.id)).toBe(3);
  });

  it('refuses any file once the form is full, still takes answers without files', async () => {
    const s = await scene();
    const form = await formOf(s);
    expectStatus(await submit(form, [data, photo(5 * KiB), receipt(5 * KiB)]), 201);
    const refused = await submit(form, [data, photo(PNG.length + 1)]);
    expect([refused.status, refused.body]).toEqual([507, FORM_FULL]);
    expectStatus(await submit(form, [data]), 201);
    const json = await call(t.app, 'POST', submitUrl(form.publicToken), {
      body: { answers: { name: 'Achieng' } },
    });
    expectStatus(json, 201);
    expect(await submissionsOf(form.id)).toBe(3);
    await expectDiskMatchesRows();
    // Another form of the same organization has a quota of its own.
    const other = await formOf(s);
    expectStatus(await submit(other, [data, photo(4 * KiB)]), 201);
  });

  it('lets no concurrent burst past it: of six 4 KiB submissions at once, two are kept', async () => {
    const s = await scene();
    const form = await formOf(s);
    const burst = await Promise.all(Array.from({ length: 6 }, () => submit(form, [data, photo(4 * KiB)])));
    const statuses = burst.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 201, 507, 507, 507, 507]);
    for (const res of burst.filter((r) => r.status === 507)) expect(res.body).toEqual(FORM_FULL);
    expect(await submissionsOf(form.id)).toBe(2);
    await expectDiskMatchesRows();
  });
});

describe('finding 4: the organization quota (ORG_FILES_QUOTA)', () => {
  it('counts every form and attachment of the organization, and applies to both', async () => {
    const s = await scene();
    const [first, second] = [await formOf(s), await formOf(s)];
    expectStatus(await submit(first, [data, photo(8 * KiB)]), 201);
    expectStatus(await submit(second, [data, photo(8 * KiB)]), 201);
    const plan = await attach(s, 8 * KiB);
    expectStatus(plan, 201);
    // 24 KiB stored: the second form has room for 2 KiB of its own, the organization for 6 KiB.
    const tooMuch = await attach(s, 7 * KiB);
    expect([tooMuch.status, tooMuch.body]).toEqual([507, ORG_FULL]);
    const third = await formOf(s);
    const refused = await submit(third, [data, photo(7 * KiB)]);
    expect([refused.status, refused.body]).toEqual([507, ORG_FULL]);
    expectStatus(await attach(s, 6 * KiB), 201);
    // Full to the byte: any file is refused, of a form or an attachment.
    expect((await submit(third, [data, photo(PNG.length)])).body).toEqual(ORG_FULL);
    expect((await attach(s, PDF.length)).body).toEqual(ORG_FULL);
    const listed = await call(t.app, 'GET', `/orgs/${s.org.id}/projects/${s.projectId}/attachments`, {
      as: s.admin,
    });
    expect(listed.body).toHaveLength(2);
    expect(await submissionsOf(third.id)).toBe(0);
    await expectDiskMatchesRows();

    // Deleting an attachment gives its room back.
    const removed = await call(t.app, 'DELETE', `/orgs/${s.org.id}/attachments/${plan.body.id}`, {
      as: s.admin,
    });
    expectStatus(removed, 204);
    expectStatus(await submit(third, [data, photo(7 * KiB)]), 201);
    await expectDiskMatchesRows();

    // Another organization is not touched by this one's files.
    const stranger = await scene();
    expectStatus(await attach(stranger, 8 * KiB), 201);
  });
});

describe('finding 4: free space and the multipart rate', () => {
  it('reports the free bytes of DATA_DIR in /metrics', async () => {
    const res = await call(t.app, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    expectStatus(res, 200);
    expect(res.body).toContain('# TYPE mel_data_dir_free_bytes gauge');
    const sample = /^mel_data_dir_free_bytes (\S+)$/m.exec(res.body as string);
    const free = Number(sample?.[1]);
    const disk = await statfs(t.config.dataDir);
    expect(free).toBeGreaterThan(0);
    expect(free).toBeLessThanOrEqual(disk.blocks * disk.bsize);
  });

  it('gives multipart submissions their own lower limit (PUBLIC_UPLOAD_RATE_LIMIT_MAX)', async () => {
    // Counted in memory, as the public bucket's own test: with Redis every file would share 127.0.0.1.
    const limited = await buildTestApp({
      PUBLIC_UPLOAD_RATE_LIMIT_MAX: '2',
      PUBLIC_RATE_LIMIT_MAX: '50',
      REDIS_URL: '',
    });
    try {
      const admin = await registerUser(limited.app);
      const org = await createOrg(limited.app, admin);
      const project = await createProject(limited.database.db, org.id);
      const form = await publishedForm(limited.app, admin, org.id, { projectId: project.id, fields: FIELDS });
      const url = submitUrl(form.publicToken);
      // JSON submissions spend only the public bucket.
      for (let i = 0; i < 3; i++) {
        const json = await call(limited.app, 'POST', url, { body: { answers: { name: 'Achieng' } } });
        expectStatus(json, 201);
      }
      for (const remaining of ['1', '0']) {
        const sent = await call(limited.app, 'POST', url, multipart([data, photo(KiB)]));
        expect([
          sent.status,
          sent.headers['x-ratelimit-limit'],
          sent.headers['x-ratelimit-remaining'],
        ]).toEqual([201, '2', remaining]);
      }
      const refused = await call(limited.app, 'POST', url, multipart([data, photo(KiB)]));
      expect(refused.status).toBe(429);
      expect(refused.headers['x-ratelimit-limit']).toBe('2');
      expect(refused.body).toMatchObject({ statusCode: 429, code: 'rate_limited' });
      const json = await call(limited.app, 'POST', url, { body: { answers: { name: 'Otieno' } } });
      expect([json.status, json.headers['x-ratelimit-limit']]).toEqual([201, '50']);
    } finally {
      await limited.close();
    }
  });

  it('documents the 507 on both upload routes', async () => {
    const doc = await call(t.app, 'GET', '/api/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [route, method] of [
      ['/forms/public/{token}/submit', 'post'],
      ['/orgs/{orgId}/projects/{projectId}/attachments', 'post'],
    ] as const) {
      expect(paths[route]?.[method]?.responses['507'], route).toMatchObject({
        description: expect.stringMatching(/quota/),
      });
    }
  });
});
