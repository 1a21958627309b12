import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'drizzle-orm';
import { MIGRATIONS_FOLDER, rowsOf, type Db } from '../db/client.js';
import { sealedUnderKeyId } from '../modules/privacy/index.js';

/**
 * What a backup archive says about itself (`manifest.json`, its first entry): enough to refuse a
 * restore that cannot work before anything is written (another kind of database, a newer schema, a
 * PII_KEY that is not the one the data is sealed under), and to check the restored data against.
 * Keys are named by ids derived from them, never given.
 */
export interface Manifest {
  format: 1;
  createdAt: string;
  app: { name: string; version: string };
  database: {
    kind: DatabaseKind;
    /** The archive entry holding it: `database.pgdump` or `database.pglite.tar.gz`. */
    entry: string;
    /** PostgreSQL's `server_version` (the embedded database's too). */
    serverVersion: string;
  };
  migrations: { applied: number; last: string | null };
  keys: {
    /** The id of the PII_KEY the personal data is sealed under (null: a database never started). */
    piiKey: string | null;
    /** An id of the JWT_SECRET the backup was made with: sessions signed before carry on under the same one. */
    jwtSecret: string;
  };
  /** Rows of every table of the public schema, at the moment the database was copied. */
  counts: Record<string, number>;
  files: { count: number; bytes: number };
}

/** A backup or restore that cannot go on: its message says why and what to do; exit 1. */
export class BackupRefused extends Error {}

/** A file that is not an archive `npm run backup` wrote, or one damaged: the message says how. */
export class ArchiveFormatError extends Error {}

export type DatabaseKind = 'postgresql' | 'embedded';

export const MANIFEST_ENTRY = 'manifest.json';
export const FILES_PREFIX = 'files/';
export const DATABASE_ENTRY: Record<DatabaseKind, string> = {
  postgresql: 'database.pgdump',
  embedded: 'database.pglite.tar.gz',
};

/** The first 8 bytes of SHA-256 over a label and the secret, as PII_KEY's id is made: names it, reveals nothing. */
export function jwtSecretId(secret: string): string {
  return createHash('sha256')
    .update('mel jwt secret id\0')
    .update(secret)
    .digest()
    .subarray(0, 8)
    .toString('hex');
}

const packageFile = path.join(path.dirname(MIGRATIONS_FOLDER), '..', '..', 'package.json');

export function appIdentity(): Manifest['app'] {
  const pkg = JSON.parse(readFileSync(packageFile, 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

interface Journal {
  entries: { when: number; tag: string }[];
}

/** The migrations this code knows, by the time drizzle records them under (`created_at`). */
export function knownMigrations(): Journal['entries'] {
  const journal = JSON.parse(
    readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as Journal;
  return journal.entries;
}

/** What the database holds, read on `db` (inside the dump's snapshot on PostgreSQL). */
export async function databaseFacts(
  db: Db,
): Promise<Pick<Manifest, 'migrations' | 'counts'> & { piiKey: string | null; serverVersion: string }> {
  const [version] = rowsOf<{ server_version: string }>(await db.execute(sql`SHOW server_version`));
  const [applied] = rowsOf<{ applied: number; last: string | null }>(
    await db.execute(sql`SELECT count(*)::int AS applied, max(created_at)::text AS last
      FROM drizzle.__drizzle_migrations`),
  );
  const last = applied?.last ? knownMigrations().find((m) => String(m.when) === applied.last) : undefined;
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`),
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(name)}`),
    );
    counts[name] = row?.n ?? 0;
  }
  return {
    serverVersion: version?.server_version ?? 'unknown',
    migrations: { applied: applied?.applied ?? 0, last: last?.tag ?? applied?.last ?? null },
    counts,
    piiKey: await sealedUnderKeyId(db),
  };
}

/** The shape of a manifest this code writes: a restore reads no field it has not checked. */
const MANIFEST_SHAPE = Type.Object({
  format: Type.Literal(1),
  createdAt: Type.String(),
  app: Type.Object({ name: Type.String(), version: Type.String() }),
  database: Type.Object({
    kind: Type.Union([Type.Literal('postgresql'), Type.Literal('embedded')]),
    entry: Type.String(),
    serverVersion: Type.String(),
  }),
  migrations: Type.Object({
    applied: Type.Integer({ minimum: 0 }),
    last: Type.Union([Type.String(), Type.Null()]),
  }),
  keys: Type.Object({ piiKey: Type.Union([Type.String(), Type.Null()]), jwtSecret: Type.String() }),
  counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  files: Type.Object({ count: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) }),
});

/** The manifest of an archive, checked to be one this code wrote. */
export function parseManifest(text: string): Manifest {
  const manifest = JSON.parse(text) as Manifest;
  if (
    !Value.Check(MANIFEST_SHAPE, manifest) ||
    // The entry it names is looked for among the archive's: only the one its kind of database has.
    DATABASE_ENTRY[manifest.database.kind] !== manifest.database.entry
  ) {
    throw new ArchiveFormatError('its manifest.json is not one this version understands');
  }
  return manifest;
}

/** The major version of a `server_version` ("15.8 (Debian ...)" gives 15). */
export const majorVersion = (serverVersion: string): number => parseInt(serverVersion, 10);
