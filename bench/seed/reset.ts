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

/** Tables that refuse TRUNCATE by a trigger (append-only records), with the trigger's name. */
const APPEND_ONLY: Record<string, string> = {
  audit_log: 'audit_log_no_truncate',
  indicator_report_history: 'indicator_report_history_no_truncate',
};

/**
 * Empties every application table (the migrations' own bookkeeping lives in another schema). The audit
 * log and the reports' history refuse TRUNCATE by a trigger: on this database of benchmark data only
 * (see foreignData), the seed, which owns the tables, turns the triggers off for its one statement, in
 * one transaction.
 */
export async function truncateAll(query: Query): Promise<void> {
  const { rows } = await query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  const tables = (rows as { tablename: string }[]).map((row) => row.tablename);
  if (tables.length === 0) return;
  const guarded = tables.filter((table) => Object.hasOwn(APPEND_ONLY, table));
  const triggers = (action: 'DISABLE' | 'ENABLE') =>
    guarded.map((table) => `ALTER TABLE ${table} ${action} TRIGGER ${APPEND_ONLY[table]};`);
  await query(
    [
      'BEGIN;',
      ...triggers('DISABLE'),
      // Identities restart too: the history's entry ids are the same on every seed.
      `TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')} RESTART IDENTITY CASCADE;`,
      ...triggers('ENABLE'),
      'COMMIT;',
    ].join(' '),
  );
}
