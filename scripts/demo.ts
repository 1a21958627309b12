/**
 * `npm run demo [-- --url <address>] [--data-dir <dir>] [--yes]`: fills the RUNNING service with one
 * small WASH organization (scripts/demo-story.ts), through its HTTP API only, and prints the accounts to
 * sign in with, the public form link and the share link. A second run finds the organization (it signs
 * in as the demo admin and looks for the organization's code), says so, prints the same and changes nothing.
 *
 * Memberships come only through invitations, whose token travels only by email: the demo reads each
 * invitation from the .eml file the service writes under DATA_DIR/mail when SMTP_URL is unset. When no
 * such file comes (SMTP, or another DATA_DIR), it revokes the invitation and goes on with the admin alone.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DemoError, Mailbox, messageOf, Service, type Session } from './demo-client.js';
import {
  ACCOUNTS,
  ADMIN,
  DEMO_PASSWORD,
  FORM,
  ORGANIZATION,
  REPORT_TITLE_START,
  TEAM,
  type DemoAccount,
  type DemoRole,
} from './demo-story.js';
import { buildStory } from './demo-build.js';

export interface DemoOptions {
  /** The running service, e.g. http://localhost:3000. */
  url: string;
  /** The service's DATA_DIR, where it writes emails when SMTP_URL is unset. */
  dataDir: string;
  /** Allows an address other than this machine. */
  yes?: boolean;
  print?: (line: string) => void;
  /** The day the story's quarters are counted from. */
  today?: Date;
  /** How long to wait for an email the service writes (ms). */
  mailWaitMs?: number;
}

export interface DemoResult {
  /** False when the organization was already there and nothing was changed. */
  created: boolean;
  organization: { id: string; name: string; code: string };
  accounts: Array<{ role: DemoRole; email: string; password: string }>;
  formUrl: string;
  shareUrl: string;
  /** Requests sent to the service (its general rate limit is 100 a minute by default). */
  requests: number;
}

interface Organization {
  id: string;
  name: string;
  code: string;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const print = options.print ?? ((line: string) => console.log(line));
  const url = checkedAddress(options.url, options.yes ?? false);
  const service = new Service(url, print);
  const health = await service.send('GET', '/health');
  if (health.status !== 200)
    throw new DemoError(`${url}/health answered ${health.status}: is this the service?`);

  let admin = await signIn(service, ADMIN);
  if (admin) {
    const organizations = await admin.get<Organization[]>('/orgs');
    const found = organizations.find((org) => org.code === ORGANIZATION.code);
    if (found) return alreadyThere(service, admin, found, print);
    // Otherwise an earlier run stopped between the admin's account and the organization: go on from there.
  } else {
    admin = await signUp(service, ADMIN);
  }

  print(`Creating the demo organization "${ORGANIZATION.name}" at ${url} ...`);
  const created = await service.send('POST', '/orgs', ORGANIZATION, admin.token);
  if (created.status === 409) {
    throw new DemoError(
      `An organization with the code ${ORGANIZATION.code} exists, and the demo admin is not its member: ` +
        'the demo changes nothing. Start the service with a fresh DATA_DIR (or database) to run it.',
    );
  }
  if (created.status !== 201) {
    throw new DemoError(`Creating the organization: ${created.status} ${messageOf(created.body)}`);
  }
  const organization = created.body as Organization;
  const mailbox = new Mailbox(options.dataDir);
  const team = await buildTeam(service, admin, organization.id, mailbox, options.mailWaitMs ?? 10_000, print);
  const links = await buildStory({
    service,
    orgId: organization.id,
    team,
    today: options.today ?? new Date(),
    print,
  });
  return finish(print, url, {
    created: true,
    organization,
    accounts: [...team.keys()].map((role) => accountOf(role)),
    ...links,
    requests: service.sent,
  });
}

/** The address, refused unless it is this machine or `--yes` says another one is meant. */
function checkedAddress(address: string, yes: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(address);
  } catch {
    throw new DemoError(`--url must be an http(s) address, e.g. http://localhost:3000 (got "${address}").`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DemoError(`--url must be an http(s) address, e.g. http://localhost:3000 (got "${address}").`);
  }
  if (!LOCAL_HOSTS.has(parsed.hostname) && !yes) {
    throw new DemoError(
      `${parsed.origin} is not this machine. The demo creates accounts with published passwords there; ` +
        'run it against a service of your own on localhost, or add --yes if that address is one.',
    );
  }
  return address.replace(/\/+$/, '');
}

/** A session of the account with the demo password; null when that does not sign in. */
async function signIn(service: Service, account: DemoAccount): Promise<Session | null> {
  const answer = await service.send('POST', '/auth/token', { email: account.email, password: DEMO_PASSWORD });
  if (answer.status === 401) return null;
  if (answer.status !== 200) throw new DemoError(`Signing in as ${account.email}: ${messageOf(answer.body)}`);
  return service.as((answer.body as { accessToken: string }).accessToken);
}

/** Registers the account (or finds it from an earlier run that stopped) and signs in. */
async function signUp(service: Service, account: DemoAccount): Promise<Session> {
  const { email, firstName, lastName } = account;
  const answer = await service.send('POST', '/auth/register', {
    email,
    password: DEMO_PASSWORD,
    firstName,
    lastName,
  });
  if (answer.status !== 201 && answer.status !== 409) {
    throw new DemoError(`Registering ${email}: ${messageOf(answer.body)}`);
  }
  const session = await signIn(service, account);
  if (!session) {
    throw new DemoError(
      `The account ${email} exists, but the demo password does not sign in to it: the demo changes nothing. ` +
        'Start the service with a fresh DATA_DIR (or database) to run it.',
    );
  }
  return session;
}

const INVITATION_LINK = /\/invitations\/([\w-]+)/;

/**
 * The org admin, then the M&E officer, reporter and viewer, each invited, registered and joined with the
 * token read from the invitation email. Without the emails: the admin alone plays every part.
 */
async function buildTeam(
  service: Service,
  admin: Session,
  orgId: string,
  mailbox: Mailbox,
  waitMs: number,
  print: (line: string) => void,
): Promise<Map<DemoRole, Session>> {
  const team = new Map<DemoRole, Session>([['org_admin', admin]]);
  for (const account of TEAM) {
    const before = mailbox.names();
    const invitation = await admin.post<{ id: string }>(`/orgs/${orgId}/members`, {
      email: account.email,
      role: account.role,
    });
    const email = await mailbox.waitFor(account.email, before, INVITATION_LINK, waitMs);
    const token = email && INVITATION_LINK.exec(email)?.[1];
    if (!token) {
      if (team.size > 1) throw new DemoError(`The invitation email to ${account.email} did not come.`);
      // Nobody can follow this invitation: leave none open.
      await service.send('DELETE', `/orgs/${orgId}/invitations/${invitation.id}`, undefined, admin.token);
      print(
        `  No invitation email appeared under ${mailbox.folder} within ${waitMs / 1000} s (the service sends ` +
          'email by SMTP, or its DATA_DIR is another one: give the demo the same DATA_DIR, or --data-dir).',
      );
      print('  Going on with the org admin alone: it plays the M&E officer and the reporter too.');
      return team;
    }
    const session = await signUp(service, account);
    await session.post(`/invitations/${token}/accept`);
    team.set(account.role, session);
  }
  print('  team: org admin, M&E officer, reporter and viewer (each invited by email and joined)');
  return team;
}

/** The organization of an earlier run: its accounts and links, read and not changed. */
async function alreadyThere(
  service: Service,
  admin: Session,
  organization: Organization,
  print: (line: string) => void,
): Promise<DemoResult> {
  const orgId = organization.id;
  const members = await admin.get<Array<{ email: string; role: DemoRole }>>(`/orgs/${orgId}/members`);
  const forms = await admin.get<Array<{ title: string; isPublished: boolean; publicUrl: string }>>(
    `/orgs/${orgId}/forms`,
  );
  const reports = await admin.get<Array<{ title: string; shareUrl: string | null }>>(
    `/orgs/${orgId}/reports?status=published`,
  );
  const form = forms.find((f) => f.isPublished && f.title === FORM.title);
  const report = reports.find((r) => r.title.startsWith(REPORT_TITLE_START) && r.shareUrl);
  if (!form || !report?.shareUrl) {
    throw new DemoError(
      `The demo organization "${organization.name}" is there but incomplete (an earlier run stopped part-way, ` +
        'or its form or shared report was changed). The demo changes nothing; start the service with a fresh ' +
        'DATA_DIR (or database) to run it again.',
    );
  }
  const joined = new Set(members.map((m) => m.email));
  return finish(print, service.url, {
    created: false,
    organization,
    accounts: ACCOUNTS.filter((a) => joined.has(a.email)).map((a) => accountOf(a.role)),
    formUrl: form.publicUrl,
    shareUrl: report.shareUrl,
    requests: service.sent,
  });
}

function accountOf(role: DemoRole) {
  const account = ACCOUNTS.find((a) => a.role === role)!;
  return { role, email: account.email, password: DEMO_PASSWORD };
}

/** Prints what to open and sign in with; the links are the service's own (under its APP_URL). */
function finish(print: (line: string) => void, base: string, result: DemoResult): DemoResult {
  const { organization: org } = result;
  if (result.created) print('');
  print(
    result.created
      ? `The demo organization "${org.name}" (code ${org.code}) is ready.`
      : `The demo organization "${org.name}" (code ${org.code}) is already there: nothing was changed.`,
  );
  print('');
  print('Sign in with (demo passwords, for a service on your own machine only):');
  for (const { role, email, password } of result.accounts) {
    const label = ACCOUNTS.find((a) => a.role === role)!.label;
    print(`  ${label.padEnd(12)} ${email.padEnd(40)} ${password}`);
  }
  if (result.accounts.length === 1) print('  (only the org admin: the invitation emails could not be read)');
  print('');
  print(`Public form (answer it in a browser):  ${result.formUrl}`);
  print(`Shared report (what the donor reads):  ${result.shareUrl}`);
  print('');
  print(`A bearer token for the API (documentation at ${base}/api):`);
  const [first] = result.accounts;
  print(
    `  curl -s -X POST ${base}/auth/token -H 'content-type: application/json' ` +
      `-d '{"email":"${first?.email}","password":"${DEMO_PASSWORD}"}'`,
  );
  return result;
}

const USAGE = `Usage: npm run demo [-- --url <address>] [--data-dir <dir>] [--yes]
  --url <address>   the running service (default: BASE_URL, else http://localhost:$PORT, else :3000)
  --data-dir <dir>  the service's DATA_DIR, where it writes emails without SMTP_URL (default: DATA_DIR, else ./data)
  --yes             allow an address other than localhost, 127.0.0.1 or [::1] (the demo creates accounts)`;

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string' },
        'data-dir': { type: 'string' },
        yes: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const env = process.env;
  try {
    await runDemo({
      url: values.url ?? env.BASE_URL ?? `http://localhost:${env.PORT ?? 3000}`,
      dataDir: values['data-dir'] ?? env.DATA_DIR ?? './data',
      yes: values.yes,
    });
  } catch (err) {
    if (!(err instanceof DemoError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
