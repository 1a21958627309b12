import { readAdministratorRequest, reportOutcome, type CommandReport } from './admin-command.js';
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';
import { createAdministrator } from './modules/orgs/index.js';
import { embeddedDatabaseInUse } from './startup.js';

/**
 * `npm run admin:create -- --email ... --org-name ... [--org-code ...]`: an organization with the person
 * as its org_admin, made from the command line (the first one of a deployment that lets only admins make
 * organizations, ORG_CREATION=admins; any other too). The account is made when the email has none, without
 * a password: a one-time link to set it is printed; no password is ever given on a command line.
 * Exit codes: 0 made, or already so (the organization has this person as org_admin); 1 the code belongs to
 * another organization, or the embedded database is in use; 2 a bad command line. What it reads and
 * prints: src/admin-command.ts.
 */

function finish(report: CommandReport): void {
  for (const line of report.out) console.log(line);
  for (const line of report.err) console.error(line);
  process.exitCode = report.exitCode;
}

const read = readAdministratorRequest(process.argv.slice(2));
if ('report' in read) {
  finish(read.report);
  process.exit();
}
const asked = read.request;
const config = loadConfigOrExit();
// PGlite is one process's: while the service has DATA_DIR's database open, a second process writing it
// would corrupt it.
const embedded = embeddedDatabaseInUse(config);
if (embedded) {
  console.error(
    `admin:create: the embedded database in ${embedded} is open in another process, the service most likely. ` +
      'It takes one process at a time: stop the service, run this again, then start it. (If no process has ' +
      'it open, one was killed: start the service and stop it once, which closes it cleanly.)',
  );
  process.exit(1);
}

const database = openDatabase(config);
try {
  await database.migrate();
  finish(reportOutcome(asked, await createAdministrator(database.db, config.appUrl, asked)));
} finally {
  await database.close();
}
