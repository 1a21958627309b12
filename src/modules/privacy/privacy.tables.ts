import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { timestamptz } from '../../db/columns.js';

/**
 * What an entry records: a read of personal data in clear, a change made to protect it, or an import
 * of people from a spreadsheet.
 */
export const AUDIT_ACTIONS = [
  'read',
  'export',
  'erase',
  'retention_erase',
  'key_rotation',
  'import',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Whose personal data an entry is about. */
export const SUBJECT_KINDS = ['participant', 'household_member', 'form_submission'] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

/**
 * The record of processing (GDPR art. 30, 32): one row per response that carried personal data in
 * clear, and per erasure, export, retention run and key rotation. Append-only in the database itself
 * (migration 0013's trigger): UPDATE, DELETE and TRUNCATE are refused, except the worker's retention
 * purge of rows older than the retention it sets for its own transaction. No foreign keys: the record
 * outlives the users and the records it names.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    /** In the order entries were written; the database numbers them, nobody else can. */
    id: bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity(),
    orgId: uuid('org_id').notNull(),
    at: timestamptz('at').notNull().defaultNow(),
    /** null for the service itself (the retention job, a key rotation). */
    actorId: uuid('actor_id'),
    actorRole: text('actor_role'),
    /** The personal access token the actor used, when it was one (its id and name then). */
    tokenId: uuid('token_id'),
    tokenName: text('token_name'),
    ip: text('ip'),
    requestId: text('request_id'),
    action: text('action').$type<AuditAction>().notNull(),
    /** `METHOD /route/pattern`, or the job's name. */
    route: text('route').notNull(),
    subjectKind: text('subject_kind').$type<SubjectKind>().notNull(),
    /** The people or submissions concerned; empty for an export of a whole form. */
    subjectIds: uuid('subject_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    /** How many records the response carried. */
    count: integer('count').notNull(),
    /** The query that chose them (lists, exports), or the reason given (erasures). */
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ name: 'audit_log_pkey', columns: [t.orgId, t.id] }),
    index('audit_log_org_id_at_idx').on(t.orgId, t.at, t.id),
    index('audit_log_subject_ids_idx').using('gin', t.subjectIds),
    index('audit_log_at_idx').on(t.at),
    check(
      'audit_log_action_check',
      sql`${t.action} IN ('read', 'export', 'erase', 'retention_erase', 'key_rotation', 'import')`,
    ),
    check('audit_log_count_check', sql`${t.count} >= 0`),
  ],
);

/**
 * One row: the key id personal data is sealed under and a value sealed with it, so a start with another
 * PII_KEY is refused before it writes anything (a wrong key would seal new values no one can open).
 */
export const sealingKeyCheck = pgTable(
  'sealing_key_check',
  {
    id: integer('id').primaryKey().default(1),
    keyId: text('key_id').notNull(),
    canary: text('canary').notNull(),
    checkedAt: timestamptz('checked_at').notNull().defaultNow(),
  },
  (t) => [check('sealing_key_check_one_row', sql`${t.id} = 1`)],
);
