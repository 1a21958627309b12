import { parseArgs } from 'node:util';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';
import { normalizeEmail } from './lib/email.js';
import { textProblem } from './lib/text.js';
import { SETUP_LINK_TTL_SECONDS } from './modules/auth/index.js';
import { createAdministrator, type AdministratorRequest } from './modules/orgs/index.js';
import { embeddedDatabaseInUse } from './startup.js';

/**
 * `npm run admin:create -- --email ... --org-name ... [--org-code ...]`: an organization with the person
 * as its org_admin, made from the command line (the first one of a deployment that lets only admins make
 * organizations, ORG_CREATION=admins; any other too). The account is made when the email has none, without
 * a password: a one-time link to set it is printed; no password is ever given on a command line.
 * Exit codes: 0 made, or already so (the organization has this person as org_admin); 1 the code belongs to
 * another organization, or the embedded database is in use; 2 a bad command line.
 */

const USAGE = `usage: npm run admin:create -- --email <address> --org-name <name> [--org-code <code>]
                                [--first-name <name>] [--last-name <name>]
  --org-code    2 to 32 lower-case letters, digits or dashes; by default made from --org-name
  --first-name  by default the part of the email before @`;

const ORG_CODE = /^[a-z0-9][a-z0-9-]{1,31}$/;
const EMAIL = fullFormats.email as RegExp;

function fail(message: string, code: number): never {
  console.error(`admin:create: ${message}`);
  process.exit(code);
}

/** The organization code a name gives: letters and digits (accents dropped), dashes between, 32 at most. */
function codeOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 32)
    .replace(/-+$/, '');
}

/** The command line read and checked, every problem named at once (exit 2). */
function request(): AdministratorRequest {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      options: {
        email: { type: 'string' },
        'org-name': { type: 'string' },
        'org-code': { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const text = (name: string) => {
    const value = values[name];
    return typeof value === 'string' ? value.trim() : undefined;
  };
  const problems: string[] = [];
  const email = normalizeEmail(text('email') ?? '');
  if (!email) problems.push('--email is required');
  else if (email.length > 254 || !EMAIL.test(email))
    problems.push(`--email is not an email address: ${email}`);
  const orgName = text('org-name') ?? '';
  if (!orgName) problems.push('--org-name is required');
  else if (orgName.length > 200) problems.push('--org-name must be at most 200 characters');
  const orgCode = text('org-code') ?? codeOf(orgName);
  if (orgName && !ORG_CODE.test(orgCode)) {
    problems.push(
      text('org-code') === undefined
        ? `--org-name gives no usable code ("${orgCode}"): give --org-code`
        : '--org-code must be 2 to 32 lower-case letters, digits or dashes, not starting with a dash',
    );
  }
  const firstName = text('first-name') || email.split('@')[0]!;
  const lastName = text('last-name') ?? '';
  if (firstName.length > 100 || lastName.length > 100)
    problems.push('--first-name and --last-name must be at most 100 characters');
  for (const [option, value] of [
    ['--org-name', orgName],
    ['--first-name', firstName],
    ['--last-name', lastName],
  ]) {
    const problem = textProblem(value!, 'one');
    if (problem) problems.push(`${option} ${problem}`);
  }
  if (problems.length > 0) fail(`${problems.join('\n  ')}\n${USAGE}`, 2);
  return { email, firstName, lastName, orgName, orgCode };
}

const asked = request();
const config = loadConfigOrExit();
const embedded = embeddedDatabaseInUse(config);
if (embedded) {
  fail(
    `the embedded database in ${embedded} is open in another process, the service most likely. It takes ` +
      'one process at a time: stop the service, run this again, then start it. (If no process has it open, ' +
      'one was killed: start the service and stop it once, which closes it cleanly.)',
    1,
  );
}

const database = openDatabase(config);
try {
  await database.migrate();
  const outcome = await createAdministrator(database.db, config.appUrl, asked);
  const { organization } = outcome;
  const named = `organization "${organization.name}" (code ${organization.code}, id ${organization.id})`;
  if (outcome.kind === 'taken') {
    console.error(
      `admin:create: the code ${organization.code} belongs to ${named}, of which ${asked.email} is no ` +
        'org_admin: nothing was changed. Choose another code with --org-code, or ask its org admins to invite them.',
    );
    process.exitCode = 1;
  } else {
    console.log(
      outcome.kind === 'created'
        ? `admin:create: created ${named} with ${asked.email} as its org_admin (${
            outcome.newAccount ? 'a new account' : 'their existing account'
          }).`
        : `admin:create: ${named} already exists with ${asked.email} as its org_admin: nothing was created.`,
    );
    if (outcome.passwordLink) {
      console.log(
        `Send this link to ${asked.email} to set their password; it works once, within ${
          SETUP_LINK_TTL_SECONDS / 3600
        } hours (run this again for a new one):`,
      );
      console.log(outcome.passwordLink);
    } else {
      console.log(`${asked.email} signs in with their password (forgot-password if it is lost).`);
    }
  }
} finally {
  await database.close();
}
