import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    /** The start of the names of the PostgreSQL databases this run clones (all dropped at its end). */
    testDatabasePrefix: string;
  }
}

/**
 * Migrates once per run. Each test file then works on its own copy: on PostgreSQL a database cloned from
 * the migrated TEST_DATABASE_URL one, on PGlite a load of the migrated snapshot.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  const prefix = `mel_test_${randomBytes(4).toString('hex')}_`;
  project.provide('testDatabasePrefix', prefix);
  if (url) {
    const database = openDatabase({ databaseUrl: url, dataDir: tmpdir() });
    await database.migrate();
    await database.close();
    project.provide('pgliteSnapshot', '');
    // A shared worker's app keeps its database to the end of the run (test/helpers/app.ts).
    return () => dropClones(url, prefix);
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

/** Drops the databases whose names start with `prefix`: this run's clones that are left. */
async function dropClones(url: string, prefix: string): Promise<void> {
  const target = new URL(url);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
