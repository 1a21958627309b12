import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { users } from '../auth/auth.tables.js';
import { DEFAULT_AGE_BANDS, UNKNOWN_AGE } from '../../lib/demographics.js';
import { isLocale, type Locale } from '../../lib/i18n/i18n.js';
import { accessTokens } from './access-tokens.tables.js';
import type { IatiOrganisationType } from './iati-organisation-types.js';
import { organizations, orgMembers, type OrgRole } from './orgs.tables.js';

export type OrganizationRow = typeof organizations.$inferSelect;

export const publicOrganization = (org: OrganizationRow) => ({
  id: org.id,
  name: org.name,
  code: org.code,
  logoUrl: org.logoUrl,
  iatiRef: org.iatiRef,
  iatiOrgType: org.iatiOrgType,
  reminderDaysBefore: org.reminderDaysBefore,
  overdueReminder: org.overdueReminder,
  separateApproval: org.separateApproval,
  showQualityNotes: org.showQualityNotes,
  ageBands: shownAgeBands(org.ageBands),
  defaultLocale: shownLocale(org.defaultLocale),
  createdAt: org.createdAt,
});

/** The bands as an organization shows them: the contract's when unset, `unknown` last. */
export const shownAgeBands = (stored: string[] | null) => [...(stored ?? DEFAULT_AGE_BANDS), UNKNOWN_AGE];

/** What a client may set on an organization. */
export interface OrganizationValues {
  name?: string;
  code?: string;
  logoUrl?: string | null;
  iatiRef?: string | null;
  iatiOrgType?: IatiOrganisationType;
  /** Stored sorted from the most days to the fewest. */
  reminderDaysBefore?: number[];
  overdueReminder?: boolean;
  separateApproval?: boolean;
  showQualityNotes?: boolean;
  /** Checked (ageBandProblems) and stored without `unknown`; null: back to the contract's. */
  ageBands?: string[] | null;
  defaultLocale?: Locale;
}

/** The stored default language (CHECKed to be one of LOCALES). */
export const shownLocale = (stored: string): Locale => (isLocale(stored) ? stored : 'en');

/**
 * The language of an email to a person about one organization: the recipient user's own (found by id
 * or address), else the organization's default, else English (docs/languages.md).
 */
export async function recipientLocale(
  db: Db,
  recipient: { userId?: string; email?: string; orgId?: string },
): Promise<Locale> {
  const who = recipient.userId
    ? eq(users.id, recipient.userId)
    : recipient.email
      ? eq(users.email, recipient.email)
      : undefined;
  if (who) {
    const [user] = await db.select({ locale: users.locale }).from(users).where(who).limit(1);
    if (isLocale(user?.locale)) return user.locale;
  }
  return recipient.orgId ? defaultLocaleOf(db, recipient.orgId) : 'en';
}

/** The organization's default language; English for an unknown organization. */
export async function defaultLocaleOf(db: Db, orgId: string): Promise<Locale> {
  const [row] = await db
    .select({ defaultLocale: organizations.defaultLocale })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row ? shownLocale(row.defaultLocale) : 'en';
}

const organizationColumns = {
  id: organizations.id,
  name: organizations.name,
  code: organizations.code,
  logoUrl: organizations.logoUrl,
  iatiRef: organizations.iatiRef,
  iatiOrgType: organizations.iatiOrgType,
  reminderDaysBefore: organizations.reminderDaysBefore,
  overdueReminder: organizations.overdueReminder,
  separateApproval: organizations.separateApproval,
  showQualityNotes: organizations.showQualityNotes,
  ageBands: organizations.ageBands,
  defaultLocale: organizations.defaultLocale,
  createdAt: organizations.createdAt,
};

export async function countOrganizationsOf(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(orgMembers).where(eq(orgMembers.userId, userId));
  return row?.total ?? 0;
}

export function listOrganizationsOf(db: Db, userId: string, window: Window) {
  return inWindow(
    db
      .select({ ...organizationColumns, role: orgMembers.role })
      .from(orgMembers)
      .innerJoin(organizations, eq(organizations.id, orgMembers.orgId))
      .where(eq(orgMembers.userId, userId))
      .orderBy(asc(organizations.name), asc(organizations.id))
      .$dynamic(),
    window,
  );
}

/**
 * Whether the organization requires the person who submitted an indicator report to be another than the
 * one who reviews it (four eyes); false for an unknown organization.
 */
export async function requiresSeparateApproval(db: Db, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ separateApproval: organizations.separateApproval })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row?.separateApproval ?? false;
}

/** Whether the organization's shared report pages show data quality notes; false for an unknown organization. */
export async function showsQualityNotes(db: Db, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ showQualityNotes: organizations.showQualityNotes })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row?.showQualityNotes ?? false;
}

/**
 * The organization's age bands, youngest first, `unknown` aside (the contract's until it sets its own;
 * those for an unknown organization too).
 */
export async function ageBandsOf(db: Db, orgId: string): Promise<readonly string[]> {
  const [row] = await db
    .select({ ageBands: organizations.ageBands })
    .from(organizations)
    .where(eq(organizations.id, orgId))
    .limit(1);
  return row?.ageBands ?? DEFAULT_AGE_BANDS;
}

export async function findOrganizationByCode(db: Db, code: string): Promise<OrganizationRow | undefined> {
  const [org] = await db.select().from(organizations).where(eq(organizations.code, code)).limit(1);
  return org;
}

/** The org_admin of the organization with this (normalized) email, and whether they have a password. */
export async function findAdminByEmail(db: Db, orgId: string, email: string) {
  const [row] = await db
    .select({ userId: orgMembers.userId, hasPassword: sql<boolean>`${users.passwordHash} IS NOT NULL` })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.role, 'org_admin'), eq(users.email, email)))
    .limit(1);
  return row;
}

export async function findOrganization(db: Db, orgId: string): Promise<OrganizationRow | undefined> {
  const [org] = await db.select().from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return org;
}

/** undefined when the code is taken. */
export async function insertOrganization(
  db: Db,
  org: OrganizationValues & { name: string; code: string },
): Promise<OrganizationRow | undefined> {
  const [row] = await db
    .insert(organizations)
    .values(org)
    .onConflictDoNothing({ target: organizations.code })
    .returning();
  return row;
}

export async function updateOrganization(
  db: Db,
  orgId: string,
  changes: OrganizationValues,
): Promise<OrganizationRow | undefined> {
  const [row] = await db.update(organizations).set(changes).where(eq(organizations.id, orgId)).returning();
  return row;
}

export async function organizationCodeTaken(db: Db, code: string, exceptOrgId?: string): Promise<boolean> {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(
      and(eq(organizations.code, code), exceptOrgId ? sql`${organizations.id} <> ${exceptOrgId}` : undefined),
    )
    .limit(1);
  return row !== undefined;
}

const memberColumns = {
  userId: orgMembers.userId,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  role: orgMembers.role,
  joinedAt: orgMembers.joinedAt,
};

export async function countMembers(db: Db, orgId: string): Promise<number> {
  const [row] = await db.select({ total: count() }).from(orgMembers).where(eq(orgMembers.orgId, orgId));
  return row?.total ?? 0;
}

export function listMembers(db: Db, orgId: string, window: Window) {
  return inWindow(
    db
      .select(memberColumns)
      .from(orgMembers)
      .innerJoin(users, eq(users.id, orgMembers.userId))
      .where(eq(orgMembers.orgId, orgId))
      .orderBy(asc(orgMembers.joinedAt), asc(orgMembers.userId))
      .$dynamic(),
    window,
  );
}

export async function findMember(db: Db, orgId: string, userId: string) {
  const [row] = await db
    .select(memberColumns)
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)))
    .limit(1);
  return row;
}

/** Whether the user is org_admin of at least one organization (ORG_CREATION=admins). */
export async function isAdminAnywhere(db: Db, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ orgId: orgMembers.orgId })
    .from(orgMembers)
    .where(and(eq(orgMembers.userId, userId), eq(orgMembers.role, 'org_admin')))
    .limit(1);
  return row !== undefined;
}

export async function isMemberByEmail(db: Db, orgId: string, email: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: orgMembers.userId })
    .from(orgMembers)
    .innerJoin(users, eq(users.id, orgMembers.userId))
    .where(and(eq(orgMembers.orgId, orgId), eq(users.email, email)))
    .limit(1);
  return row !== undefined;
}

/** false when the user already belongs to the organization. */
export async function insertMember(
  db: Db,
  orgId: string,
  member: { userId: string; role: OrgRole },
): Promise<boolean> {
  const rows = await db
    .insert(orgMembers)
    .values({ ...member, orgId })
    .onConflictDoNothing()
    .returning({ userId: orgMembers.userId });
  return rows.length > 0;
}

/**
 * Locks the organization's admin rows for the rest of the transaction and returns their user ids, so two
 * concurrent demotions cannot both see "another admin is left".
 */
export async function lockAdmins(db: Db, orgId: string): Promise<string[]> {
  const rows = await db
    .select({ userId: orgMembers.userId })
    .from(orgMembers)
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.role, 'org_admin')))
    .for('update');
  return rows.map((row) => row.userId);
}

export async function setMemberRole(db: Db, orgId: string, userId: string, role: OrgRole): Promise<void> {
  await db
    .update(orgMembers)
    .set({ role })
    .where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)));
}

/**
 * Ends a membership, and with it the user's personal access tokens in that organization (in the
 * caller's transaction): re-invited later, the user starts without them.
 */
export async function deleteMember(db: Db, orgId: string, userId: string): Promise<void> {
  await db.delete(orgMembers).where(and(eq(orgMembers.orgId, orgId), eq(orgMembers.userId, userId)));
  await db.delete(accessTokens).where(and(eq(accessTokens.orgId, orgId), eq(accessTokens.userId, userId)));
}
