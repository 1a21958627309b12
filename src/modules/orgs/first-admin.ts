import { transaction, type Db } from '../../db/client.js';
import { findOrCreateAccount, issuePasswordLink } from '../auth/index.js';
import { findAdminByEmail, findOrganizationByCode, publicOrganization } from './orgs.repo.js';
import { createOrganization } from './orgs.service.js';

/** What `npm run admin:create` asks for: values already checked and normalized. */
export interface AdministratorRequest {
  email: string;
  firstName: string;
  lastName: string;
  orgName: string;
  orgCode: string;
}

type Organization = ReturnType<typeof publicOrganization>;

/**
 * What became of it. `created`: the organization, with the person as its org_admin (their account made
 * when they had none). `exists`: the code's organization has them as org_admin already, nothing made.
 * `taken`: the code belongs to an organization they do not administer, nothing made. `passwordLink`: a
 * one-time link to set their password, when their account has none.
 */
export type AdministratorOutcome =
  | { kind: 'created'; organization: Organization; newAccount: boolean; passwordLink: string | null }
  | { kind: 'exists'; organization: Organization; passwordLink: string | null }
  | { kind: 'taken'; organization: Organization };

/**
 * The first administrator and organization of a deployment, or any other, from the command line: one
 * transaction, so a failure leaves nothing half made. The organization's code is its identity: a second
 * run with the same code changes nothing.
 */
export function createAdministrator(
  db: Db,
  appUrl: string,
  request: AdministratorRequest,
): Promise<AdministratorOutcome> {
  return transaction(db, async (tx): Promise<AdministratorOutcome> => {
    const known = await findOrganizationByCode(tx, request.orgCode);
    if (known) return existing(tx, appUrl, known, request.email);
    const { user, created } = await findOrCreateAccount(tx, {
      email: request.email,
      firstName: request.firstName,
      lastName: request.lastName,
    });
    const organization = await createOrganization(tx, user.id, {
      name: request.orgName,
      code: request.orgCode,
    });
    // A concurrent request took the code since the look-up (rare): running again says whose it is.
    if (!organization) throw new Error(`organization code ${request.orgCode} was taken meanwhile`);
    return {
      kind: 'created',
      organization: publicOrganization(organization),
      newAccount: created,
      passwordLink: user.passwordHash === null ? await issuePasswordLink(tx, appUrl, user.id) : null,
    };
  });
}

async function existing(
  tx: Db,
  appUrl: string,
  known: Parameters<typeof publicOrganization>[0],
  email: string,
): Promise<AdministratorOutcome> {
  const organization = publicOrganization(known);
  const admin = await findAdminByEmail(tx, known.id, email);
  if (!admin) return { kind: 'taken', organization };
  // The link printed the first time may be lost or expired: while no password is set, a new one.
  const passwordLink = admin.hasPassword ? null : await issuePasswordLink(tx, appUrl, admin.userId);
  return { kind: 'exists', organization, passwordLink };
}
