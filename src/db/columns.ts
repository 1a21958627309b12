import { sql, type SQL } from 'drizzle-orm';
import { check, timestamp, uuid, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { newId } from '../lib/ids.js';

export const id = () => uuid('id').primaryKey().$defaultFn(newId);
/** The id of a tenant table's row: its primary key is (org_id, id), declared with the table. */
export const rowId = () => uuid('id').notNull().$defaultFn(newId);
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const createdAt = () => timestamptz('created_at').notNull().defaultNow();
export const updatedAt = () =>
  timestamptz('updated_at')
    .notNull()
    .defaultNow()
    .$onUpdateFn(() => new Date());

/**
 * A double precision column holds only finite numbers (or null): Infinity and NaN would break every
 * later read that serializes or scores them. In PostgreSQL NaN sorts above Infinity, so both fail here.
 */
export const finite = (name: string, column: AnyPgColumn) =>
  check(name, sql`${column} > '-Infinity'::float8 AND ${column} < 'Infinity'::float8`);

/**
 * A timestamp written by the database as the API writes it (`Date.toISOString`: UTC, milliseconds), for
 * read models in plain SQL: no Date made per value only to be written back as text.
 */
export const isoTime = (at: SQL | AnyPgColumn) =>
  sql`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
