import type { CommandReport } from './admin-command.js';
import { readRestoreArguments, restoreBackup } from './backups/restore-command.js';
import { loadConfigOrExit } from './config.js';

/**
 * `npm run restore -- FILE`: a backup archive (`npm run backup`) into an empty database and DATA_DIR,
 * everything that can be checked checked before anything is written (docs/operations.md, "Back up and
 * restore"). What it does and says: src/backups/restore-command.ts.
 * Exit codes: 0 restored; 1 refused (nothing written) or failed; 2 a bad command line.
 */

function finish(report: CommandReport): never {
  for (const line of report.out) console.log(line);
  for (const line of report.err) console.error(line);
  process.exit(report.exitCode);
}

const read = readRestoreArguments(process.argv.slice(2));
if ('report' in read) finish(read.report);
finish(await restoreBackup(loadConfigOrExit(), read.file));
