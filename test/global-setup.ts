import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
  }
}

/**
 * Migrates once per run. Each test file then works on its own copy: on PostgreSQL a database cloned from
 * the migrated TEST_DATABASE_URL one, on PGlite a load of the migrated snapshot.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const database = openDatabase({ databaseUrl: url, dataDir: tmpdir() });
    await database.migrate();
    await database.close();
    project.provide('pgliteSnapshot', '');
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'mel-test-'));
  const pglite = new PGlite();
  const database = openDatabase({ databaseUrl: null, dataDir: dir, pglite });
  await database.migrate();
  const snapshot = await pglite.dumpDataDir('none');
  const file = path.join(dir, 'snapshot.tar');
  writeFileSync(file, Buffer.from(await snapshot.arrayBuffer()));
  await database.close();
  project.provide('pgliteSnapshot', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
