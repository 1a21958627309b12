import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/client.js';
import { useSuite } from './helpers/suite.js';

/**
 * The schema stays ready to be distributed by organization (docs/operations.md, "A distributed PostgreSQL"):
 * Citus enforces a primary key, a unique key or a foreign key between distributed tables only when it
 * includes the distribution column, org_id. Read from the migrated database's catalog, so a migration that
 * forgets org_id fails here, naming the table, the key and the fix.
 */

/** Tables without org_id copied to every node: small, read with tenant rows, written rarely. */
const REFERENCE: Readonly<Record<string, string>> = {
  'public.organizations': 'the tenants themselves; a global unique code; every tenant table points at it',
  'public.users': 'people belong to several organizations; the session check reads them on every request',
  'public.external_identities': "a user's identity-provider sign-ins, with a foreign key to users",
  'public.password_resets': 'single-use links of a user, with a foreign key to users',
  'public.email_verifications': 'single-use links of a user, with a foreign key to users',
};

/** Tables without org_id kept on the coordinator only: per instance, or about no one tenant. */
const LOCAL: Readonly<Record<string, string>> = {
  'drizzle.__drizzle_migrations': 'the migrations applied: bookkeeping of the schema itself',
  'public.sealing_key_check': 'one row that checks the PII key this deployment seals with',
  'public.outbox_emails': 'the mail queue, drained by workers across every organization',
  'public.login_failures': 'failed sign-ins per email address, before anyone is known',
  'public.revoked_tokens': 'signed-out sessions, checked per request before any organization is chosen',
  'public.idempotency_keys': 'keyed requests per caller (a user or a public form), not per organization',
  // FILE_STORAGE=database: reached only by a storage key that a tenant row holds, never joined with one;
  // large, so under Citus either here or distributed by key on their own (not co-located).
  'public.stored_files': 'uploaded files kept in the database, by storage key',
  'public.stored_file_chunks':
    'the bytes of the stored files, chunk by chunk, with a foreign key to stored_files',
};

/** Tables with org_id that are nonetheless not distributed by it, each with its reason. */
const NOT_DISTRIBUTED: Readonly<Record<string, string>> = {
  'public.access_tokens':
    "a reference table: a user's personal access tokens, found by the secret's hash on each request that " +
    'presents one, before any organization is known; few rows, written rarely; points at users',
};

type Kind = 'distributed' | 'reference' | 'local';

interface TableRow {
  name: string;
  hasOrgId: boolean;
}
interface KeyRow {
  table: string;
  name: string;
  kind: 'primary key' | 'unique constraint' | 'unique index';
  /** Key columns in order; null for an expression. */
  columns: (string | null)[];
}
interface ForeignKeyRow {
  table: string;
  name: string;
  references: string;
  columns: string[];
  referencedColumns: string[];
  /** The columns its ON DELETE SET NULL or SET DEFAULT writes; empty for other actions. */
  setOnDelete: string[];
}

describe('distribution readiness: every key of a tenant table carries org_id', () => {
  const { t } = useSuite();
  let tables: TableRow[] = [];
  let keys: KeyRow[] = [];
  let foreignKeys: ForeignKeyRow[] = [];

  beforeAll(async () => {
    const db = t.database.db;
    const userTables = sql`c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;
    tables = rowsOf<TableRow>(
      await db.execute(sql`
        SELECT n.nspname || '.' || c.relname AS name,
          EXISTS (SELECT 1 FROM pg_attribute a
            WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped) AS "hasOrgId"
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE ${userTables}`),
    );
    keys = rowsOf<KeyRow>(
      await db.execute(sql`
        SELECT n.nspname || '.' || c.relname AS table, ic.relname::text AS name,
          CASE WHEN i.indisprimary THEN 'primary key'
            WHEN EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u')
              THEN 'unique constraint'
            ELSE 'unique index' END AS kind,
          ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
            LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE k.position <= i.indnkeyatts ORDER BY k.position) AS columns
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_class ic ON ic.oid = i.indexrelid
        WHERE i.indisunique AND ${userTables}`),
    );
    foreignKeys = rowsOf<ForeignKeyRow>(
      await db.execute(sql`
        SELECT n.nspname || '.' || c.relname AS table, f.conname::text AS name,
          rn.nspname || '.' || r.relname AS references,
          ARRAY(SELECT a.attname::text FROM unnest(f.conkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum ORDER BY k.position) AS columns,
          ARRAY(SELECT a.attname::text FROM unnest(f.confkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.attnum ORDER BY k.position)
            AS "referencedColumns",
          ARRAY(SELECT a.attname::text FROM unnest(coalesce(f.confdelsetcols, f.conkey)) AS k(attnum)
            JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum
            WHERE f.confdeltype IN ('n', 'd')) AS "setOnDelete"
        FROM pg_constraint f
        JOIN pg_class c ON c.oid = f.conrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_class r ON r.oid = f.confrelid
        JOIN pg_namespace rn ON rn.oid = r.relnamespace
        WHERE f.contype = 'f' AND ${userTables}`),
    );
  });

  const kindOf = (table: string): Kind | undefined => {
    if (REFERENCE[table] !== undefined) return 'reference';
    if (LOCAL[table] !== undefined) return 'local';
    const row = tables.find((candidate) => candidate.name === table);
    if (row?.hasOrgId && NOT_DISTRIBUTED[table] === undefined) return 'distributed';
    return undefined;
  };

  it('reads the migrated schema', () => {
    expect(tables.length).toBeGreaterThan(30);
    expect(keys.length).toBeGreaterThan(tables.length);
    expect(foreignKeys.length).toBeGreaterThan(30);
  });

  it('places every table in the plan: distributed by org_id, reference or local', () => {
    const problems: string[] = [];
    for (const { name, hasOrgId } of tables) {
      const placed = [REFERENCE, LOCAL, NOT_DISTRIBUTED].filter((list) => list[name] !== undefined).length;
      if (placed > 1) problems.push(`${name} is in more than one list of this test: keep it in one`);
      if (!hasOrgId && placed === 0) {
        problems.push(
          `${name} has no org_id and is not in the plan: add org_id to it, or add it to REFERENCE or LOCAL in ` +
            'test/distribution-ready.test.ts with its reason (and to the plan in docs/operations.md)',
        );
      }
      if (hasOrgId && (REFERENCE[name] !== undefined || LOCAL[name] !== undefined)) {
        problems.push(
          `${name} has org_id: distribute it (take it out of REFERENCE or LOCAL) or list it in NOT_DISTRIBUTED`,
        );
      }
    }
    const names = new Set(tables.map((table) => table.name));
    for (const listed of [
      ...Object.keys(REFERENCE),
      ...Object.keys(LOCAL),
      ...Object.keys(NOT_DISTRIBUTED),
    ]) {
      if (!names.has(listed)) problems.push(`${listed} is in the plan but not in the schema: take it out`);
    }
    expect(problems).toEqual([]);
  });

  it('gives every distributed table a primary key that includes org_id', () => {
    const problems: string[] = [];
    for (const { name } of tables) {
      if (kindOf(name) !== 'distributed') continue;
      const primary = keys.find((key) => key.table === name && key.kind === 'primary key');
      if (!primary) problems.push(`${name} has no primary key: give it one that starts with org_id`);
      else if (!primary.columns.includes('org_id')) {
        problems.push(
          `${name}: primary key ${primary.name} (${primary.columns.join(', ')}) lacks org_id: ` +
            'make it PRIMARY KEY (org_id, ...) in a migration and in the table definition',
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it('includes org_id in every unique constraint and unique index of a distributed table', () => {
    const problems = keys
      .filter((key) => key.kind !== 'primary key' && kindOf(key.table) === 'distributed')
      .filter((key) => !key.columns.includes('org_id'))
      .map(
        (key) =>
          `${key.table}: ${key.kind} ${key.name} (${key.columns.map((column) => column ?? '<expression>').join(', ')}) ` +
          'lacks org_id: add org_id to its columns (Citus cannot enforce it across shards); an index that only ' +
          'speeds lookups need not be unique',
      );
    expect(problems).toEqual([]);
  });

  it('joins distributed tables by foreign keys that match org_id to org_id', () => {
    const problems: string[] = [];
    for (const key of foreignKeys) {
      const from = kindOf(key.table);
      const to = kindOf(key.references);
      const where = `${key.table}: foreign key ${key.name} (${key.columns.join(', ')}) -> ${key.references} (${key.referencedColumns.join(', ')})`;
      if (from === 'distributed' && to === 'distributed') {
        const position = key.columns.indexOf('org_id');
        if (position < 0 || key.referencedColumns[position] !== 'org_id') {
          problems.push(
            `${where} does not pair org_id with org_id: reference (org_id, ...) -> (org_id, ...) ` +
              '(a SET NULL action then names only the other columns)',
          );
        } else if (key.setOnDelete.includes('org_id')) {
          problems.push(
            `${where} would clear org_id on delete: write ON DELETE SET NULL (<the other columns>)`,
          );
        }
      } else if (from === 'reference' && to !== 'reference') {
        problems.push(`${where}: a reference table may point only at reference tables`);
      } else if (from === 'local' && to !== 'local') {
        problems.push(`${where}: a local table may point only at local tables`);
      } else if (from === 'distributed' && to === 'local') {
        problems.push(`${where}: a distributed table may point at distributed or reference tables only`);
      }
    }
    expect(problems).toEqual([]);
  });
});
