import { transaction, type Db } from '../../db/client.js';
import type { Session } from '../../http/pipeline/access.js';
import type { Config } from '../../config.js';
import { badRequest, duplicate, notFound, orgCreationClosed } from '../../errors/catalogue.js';
import { ageBandProblems, DEFAULT_AGE_BANDS, withoutUnknown } from '../../lib/demographics.js';
import { refusedDuplicate } from '../../errors/refusals.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import type { Sessions } from '../../http/pipeline/session.js';
import {
  findOrganization,
  insertMember,
  insertOrganization,
  countOrganizationsOf,
  isAdminAnywhere,
  listOrganizationsOf,
  organizationCodeTaken,
  publicOrganization,
  shownAgeBands,
  shownLocale,
  updateOrganization,
  type OrganizationValues,
} from './orgs.repo.js';

const CODE_TAKEN = 'An organization with this code already exists';
export class OrganizationService {
  constructor(
    private readonly db: Db,
    private readonly sessions: Sessions,
    /** ORG_CREATION: `admins` leaves POST /orgs to org_admins of an organization. */
    private readonly orgCreation: Config['orgCreation'],
  ) {}

  listMine(userId: string, query: PageRequest) {
    return paginate(query, {
      count: () => countOrganizationsOf(this.db, userId),
      list: async (window) =>
        (await listOrganizationsOf(this.db, userId, window)).map((org) => ({
          ...org,
          ageBands: shownAgeBands(org.ageBands),
          defaultLocale: shownLocale(org.defaultLocale),
        })),
    });
  }

  /** The creator becomes its org_admin and gets a session in it. */
  async create(session: Session, input: NewOrganization) {
    if (this.orgCreation === 'admins' && !(await isAdminAnywhere(this.db, session.userId))) {
      throw orgCreationClosed();
    }
    const org = await transaction(this.db, async (tx) => {
      const created = await createOrganization(tx, session.userId, input);
      if (!created) throw duplicate(CODE_TAKEN);
      return created;
    });
    const token = await this.sessions.issue({
      userId: session.userId,
      email: session.email,
      organizationId: org.id,
      role: 'org_admin',
    });
    return { organization: publicOrganization(org), token };
  }

  async get(orgId: string) {
    const org = await findOrganization(this.db, orgId);
    if (!org) throw notFound('Organization');
    return publicOrganization(org);
  }

  async update(orgId: string, changes: OrganizationValues) {
    if (changes.code !== undefined && (await organizationCodeTaken(this.db, changes.code, orgId))) {
      throw duplicate(CODE_TAKEN);
    }
    const values = {
      ...(changes.name !== undefined && { name: changes.name.trim() }),
      ...(changes.code !== undefined && { code: changes.code }),
      ...(changes.logoUrl !== undefined && { logoUrl: changes.logoUrl }),
      ...(changes.iatiRef !== undefined && { iatiRef: changes.iatiRef }),
      ...(changes.iatiOrgType !== undefined && { iatiOrgType: changes.iatiOrgType }),
      ...(changes.reminderDaysBefore !== undefined && {
        reminderDaysBefore: [...changes.reminderDaysBefore].sort((a, b) => b - a),
      }),
      ...(changes.overdueReminder !== undefined && { overdueReminder: changes.overdueReminder }),
      ...(changes.separateApproval !== undefined && { separateApproval: changes.separateApproval }),
      ...(changes.showQualityNotes !== undefined && { showQualityNotes: changes.showQualityNotes }),
      ...(changes.ageBands !== undefined && { ageBands: checkedAgeBands(changes.ageBands) }),
      ...(changes.defaultLocale !== undefined && { defaultLocale: changes.defaultLocale }),
    };
    // refusedDuplicate: another organization took the code between the check and the update.
    const org =
      Object.keys(values).length > 0
        ? await updateOrganization(this.db, orgId, values).catch(refusedDuplicate(CODE_TAKEN))
        : await findOrganization(this.db, orgId);
    if (!org) throw notFound('Organization');
    return publicOrganization(org);
  }
}

/** The bands to store: null (the contract's) for null or for exactly the contract's; else checked. */
function checkedAgeBands(bands: string[] | null): string[] | null {
  if (bands === null) return null;
  const problems = ageBandProblems(bands);
  if (problems.length > 0) throw badRequest(...problems);
  const ranges = withoutUnknown(bands);
  const contract =
    ranges.length === DEFAULT_AGE_BANDS.length && ranges.every((b, i) => b === DEFAULT_AGE_BANDS[i]);
  return contract ? null : ranges;
}

export type NewOrganization = OrganizationValues & { name: string; code: string };

/**
 * In the caller's transaction: the organization with `adminId` as its org_admin (POST /orgs, and
 * `npm run admin:create`); undefined when the code is taken.
 */
export async function createOrganization(tx: Db, adminId: string, input: NewOrganization) {
  const created = await insertOrganization(tx, {
    name: input.name.trim(),
    code: input.code,
    logoUrl: input.logoUrl,
    iatiRef: input.iatiRef,
    iatiOrgType: input.iatiOrgType,
  });
  if (created) await insertMember(tx, created.id, { userId: adminId, role: 'org_admin' });
  return created;
}
