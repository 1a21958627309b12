import { parseArgs } from 'node:util';
import { FILE_STORAGE_KINDS, loadConfigOrExit, type FileStorageKind } from './config.js';
import { bulkLimits, openDatabase } from './db/client.js';
import { embeddedDatabaseInUse, waitForDatabaseOrExit } from './startup.js';
import { storages } from './storage/configured-storage.js';
import { moveFiles } from './storage/move-files.js';

/**
 * `npm run files:migrate -- --to database|filesystem`: moves every uploaded file from the other storage
 * into the one named (see src/storage/move-files.ts). Stopped, it is resumed by running it again.
 * Exit codes: 0 every file moved; 1 some could not be (each named on stderr; run it again), or the
 * embedded database is in use; 2 a bad command line.
 */

const USAGE = 'usage: npm run files:migrate -- --to database|filesystem';

function fail(message: string, code: number): never {
  console.error(`files:migrate: ${message}`);
  process.exit(code);
}

function target(): FileStorageKind {
  let to: string | undefined;
  try {
    to = parseArgs({ options: { to: { type: 'string' } }, strict: true, allowPositionals: false }).values.to;
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  const known = FILE_STORAGE_KINDS.find((kind) => kind === to);
  return (
    known ??
    fail(`--to must be database or filesystem${to === undefined ? '' : ` (got "${to}")`}\n${USAGE}`, 2)
  );
}

const to = target();
const from = to === 'database' ? 'filesystem' : 'database';
const config = loadConfigOrExit();
const embedded = embeddedDatabaseInUse(config);
if (embedded) {
  fail(
    `the embedded database in ${embedded} is open in another process, the service most likely. It takes ` +
      'one process at a time: stop the service, run this again, then start it.',
    1,
  );
}
await waitForDatabaseOrExit(config);
const database = openDatabase({ ...config, databaseTimeouts: bulkLimits(config.databaseTimeouts) });
try {
  await database.migrate();
  const both = storages(config, database);
  console.log(`files:migrate: moving the files in ${from} storage to ${to} storage`);
  let reported = Date.now();
  const counts = await moveFiles(both[from], both[to], {
    onFailure: (key, problem) => console.error(`files:migrate: ${key} not moved: ${problem}`),
    onProgress: ({ moved, alreadyThere }) => {
      if (Date.now() - reported < 5000) return;
      reported = Date.now();
      console.log(`files:migrate: ${moved + alreadyThere} files moved so far`);
    },
  });
  console.log(
    `files:migrate: done: ${counts.moved} moved, ${counts.alreadyThere} already in ${to} storage, ` +
      `${counts.gone} deleted meanwhile, ${counts.failed} failed`,
  );
  if (counts.failed > 0) {
    console.error('files:migrate: some files were not moved (above): run it again to retry them');
    process.exitCode = 1;
  } else if (config.fileStorage !== to) {
    console.log(
      `files:migrate: FILE_STORAGE is ${config.fileStorage} here: set FILE_STORAGE=${to} on every ` +
        'instance, or new uploads keep going to the other storage',
    );
  }
} finally {
  await database.close();
}
