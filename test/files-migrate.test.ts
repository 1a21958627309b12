/**
 * `npm run files:migrate`, as deployed: the compiled script in a process of its own, moving the files of
 * DATA_DIR/files into the database the service uses (PostgreSQL with TEST_DATABASE_URL, else the
 * embedded one on disk). Moving back and resuming are in src/storage/move-files.test.ts.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.js';
import { DatabaseStorage } from '../src/storage/database-storage.js';
import { LocalDiskStorage, newStorageKey } from '../src/storage/file-storage.js';
import { maintenanceQuery, TEST_PII_KEY } from './helpers/app.js';
import { migratedDataDir } from './helpers/embedded.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testUrl = process.env.TEST_DATABASE_URL;

let dataDir: string;
let url: string | null = null;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'mel-files-migrate-'));
  if (testUrl) {
    const name = `mel_fmig_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    await maintenanceQuery(testUrl, `CREATE DATABASE ${name} TEMPLATE ${new URL(testUrl).pathname.slice(1)}`);
    const own = new URL(testUrl);
    own.pathname = `/${name}`;
    url = own.toString();
  } else {
    await migratedDataDir(dataDir);
  }
}, 120_000);
afterAll(async () => {
  if (url && testUrl)
    await maintenanceQuery(testUrl, `DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
  rmSync(dataDir, { recursive: true, force: true });
});

function filesMigrate(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--enable-source-maps', path.join(root, 'scripts/start.mjs'), 'files-migrate', ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          DATA_DIR: dataDir,
          JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
          PII_KEY: TEST_PII_KEY,
          ...(url ? { DATABASE_URL: url } : {}),
        },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

it('moves the files on disk into the database and says how many', async () => {
  const disk = new LocalDiskStorage(path.join(dataDir, 'files'));
  const contents = new Map([
    [newStorageKey(), randomBytes(600_000)],
    [newStorageKey(), Buffer.from('a small file')],
  ]);
  for (const [key, bytes] of contents) await disk.put(key, bytes);

  const run = await filesMigrate('--to', 'database');
  expect(run.code, run.err).toBe(0);
  expect(run.out).toContain('files:migrate: moving the files in filesystem storage to database storage');
  expect(run.out).toContain(
    'files:migrate: done: 2 moved, 0 already in database storage, 0 deleted meanwhile, 0 failed',
  );
  // Its environment has no FILE_STORAGE: it says what is left to do.
  expect(run.out).toContain('set FILE_STORAGE=database on every instance');

  const database = openDatabase({ databaseUrl: url, dataDir });
  try {
    const stored = new DatabaseStorage(database);
    for (const [key, bytes] of contents)
      expect((await buffer(await stored.get(key))).equals(bytes)).toBe(true);
  } finally {
    await database.close();
  }
  for (const key of contents.keys()) expect(await disk.size(key)).toBeNull();
}, 180_000);
