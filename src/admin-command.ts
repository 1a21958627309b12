import { parseArgs } from 'node:util';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { normalizeEmail } from './lib/email.js';
import { textProblem } from './lib/text.js';
import { SETUP_LINK_TTL_SECONDS } from './modules/auth/index.js';
import type { AdministratorOutcome, AdministratorRequest } from './modules/orgs/index.js';

/**
 * What `npm run admin:create` reads and prints (src/admin-create.ts runs it): the command line checked
 * with every problem named at once, and an outcome in words. Kept apart from the command's process so
 * that both are tested without starting one.
 */

export const ADMIN_CREATE_USAGE = `usage: npm run admin:create -- --email <address> --org-name <name> [--org-code <code>]
                                [--first-name <name>] [--last-name <name>]
  --org-code    2 to 32 lower-case letters, digits or dashes; by default made from --org-name
  --first-name  by default the part of the email before @`;

const ORG_CODE = /^[a-z0-9][a-z0-9-]{1,31}$/;
const EMAIL = fullFormats.email as RegExp;

/** What the command prints and how it exits; lines without the `admin:create: ` prefix where shown so. */
export interface CommandReport {
  exitCode: number;
  out: string[];
  err: string[];
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

const refused = (message: string): CommandReport => ({
  exitCode: 2,
  out: [],
  err: [`admin:create: ${message}\n${ADMIN_CREATE_USAGE}`],
});

/** The command line read and checked: the request, or the report of a refusal (exit 2) or of `--help` (0). */
export function readAdministratorRequest(
  args: string[],
): { request: AdministratorRequest } | { report: CommandReport } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
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
    return { report: refused((err as Error).message) };
  }
  if (values.help) return { report: { exitCode: 0, out: [ADMIN_CREATE_USAGE], err: [] } };
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
  if (problems.length > 0) return { report: refused(problems.join('\n  ')) };
  return { request: { email, firstName, lastName, orgName, orgCode } };
}

/** The outcome in words: exit 0 when made or already so, 1 when the code is another organization's. */
export function reportOutcome(asked: AdministratorRequest, outcome: AdministratorOutcome): CommandReport {
  const { organization } = outcome;
  const named = `organization "${organization.name}" (code ${organization.code}, id ${organization.id})`;
  if (outcome.kind === 'taken') {
    return {
      exitCode: 1,
      out: [],
      err: [
        `admin:create: the code ${organization.code} belongs to ${named}, of which ${asked.email} is no ` +
          'org_admin: nothing was changed. Choose another code with --org-code, or ask its org admins to invite them.',
      ],
    };
  }
  const out = [
    outcome.kind === 'created'
      ? `admin:create: created ${named} with ${asked.email} as its org_admin (${
          outcome.newAccount ? 'a new account' : 'their existing account'
        }).`
      : `admin:create: ${named} already exists with ${asked.email} as its org_admin: nothing was created.`,
  ];
  if (outcome.passwordLink) {
    out.push(
      `Send this link to ${asked.email} to set their password; it works once, within ${
        SETUP_LINK_TTL_SECONDS / 3600
      } hours (run this again for a new one):`,
      outcome.passwordLink,
    );
  } else {
    out.push(`${asked.email} signs in with their password (forgot-password if it is lost).`);
  }
  return { exitCode: 0, out, err: [] };
}
