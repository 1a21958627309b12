import { openDatabase } from './client.js';

// See embedded-first-start.ts: a new embedded database in DATA_DIR (argv[2]), created and migrated in a
// process of its own.
const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: embedded-first-start-child DATA_DIR');
const database = openDatabase({ databaseUrl: null, dataDir });
try {
  await database.migrate();
} finally {
  await database.close();
}
