import { bigint, customType, integer, pgTable, primaryKey, uuid } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz } from '../db/columns.js';

/** PGlite gives bytea as a Uint8Array, pg as a Buffer; both are sent as they are. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

/**
 * Files kept in the database (FILE_STORAGE=database), one row each. A file is readable only once
 * `completedAt` is set, after its last chunk: a half-written file is never read, and an upload that
 * failed or was cut off is deleted (or swept by the retention jobs when the process died mid-write).
 * No `org_id`: like a file on disk, it is found only through the row that holds its key (an attachment,
 * a submission's file), which is filtered by organization.
 */
export const storedFiles = pgTable('stored_files', {
  key: uuid('key').primaryKey(),
  size: bigint('size', { mode: 'number' }).notNull().default(0),
  chunks: integer('chunks').notNull().default(0),
  createdAt: createdAt(),
  completedAt: timestamptz('completed_at'),
});

/** A stored file's bytes in pieces of `CHUNK_BYTES`, numbered from 0; deleted with their file. */
export const storedFileChunks = pgTable(
  'stored_file_chunks',
  {
    key: uuid('key')
      .notNull()
      .references(() => storedFiles.key, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.seq] })],
);
