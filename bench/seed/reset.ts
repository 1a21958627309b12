import type { Query } from './bulk.js';
import { ORG } from './organization.js';

/**
 * What a reseed would destroy that a previous seed did not make: organizations other than `bench`, users
 * outside bench.example. Empty means the database holds nothing but benchmark data.
 */
export async function foreignData(query: Query): Promise<string[]> {
  const { rows } = await query(
    `SELECT 'organization ' || code AS what FROM organizations WHERE code <> $1
     UNION ALL
     SELECT 'user ' || email FROM users WHERE email NOT LIKE '%@bench.example'
     LIMIT 6`,
    [ORG.code],
  );
  return (rows as { what: string }[]).map((row) => row.what);
}

/**
 * Empties every application table (the migrations' own bookkeeping lives in another schema). The audit
 * log refuses TRUNCATE by a trigger: on this database of benchmark data only (see foreignData), the
 * seed, which owns the tables, turns the trigger off for its one statement, in one transaction.
 */
export async function truncateAll(query: Query): Promise<void> {
  const { rows } = await query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  const tables = (rows as { tablename: string }[]).map((row) => row.tablename);
  if (tables.length === 0) return;
  const audit = tables.includes('audit_log');
  await query(
    [
      audit ? 'BEGIN; ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_truncate;' : '',
      `TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')} CASCADE;`,
      audit ? 'ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_truncate; COMMIT;' : '',
    ].join(' '),
  );
}
