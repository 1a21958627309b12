import type { CommandReport } from './admin-command.js';
import { makeBackup, readBackupArguments } from './backups/backup-command.js';
import { loadConfigOrExit } from './config.js';

/**
 * `npm run backup -- --out FILE`: one archive of the database, the stored files and a manifest
 * (docs/operations.md, "Back up and restore"). What it does and says: src/backups/backup-command.ts.
 * Exit codes: 0 written; 1 refused or failed (nothing left at FILE); 2 a bad command line.
 */

function finish(report: CommandReport): never {
  for (const line of report.out) console.log(line);
  for (const line of report.err) console.error(line);
  process.exit(report.exitCode);
}

// Everything this process and pg_dump write (the dump on its way into the archive) is its owner's alone:
// a backup holds personal data.
process.umask(0o077);

const read = readBackupArguments(process.argv.slice(2));
if ('report' in read) finish(read.report);
finish(await makeBackup(loadConfigOrExit(), read.out));
