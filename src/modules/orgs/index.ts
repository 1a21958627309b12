/** What other modules and the entry points may use of the orgs module (docs/architecture.md, "Module order"). */
export { createAdministrator, type AdministratorOutcome, type AdministratorRequest } from './first-admin.js';
export type { IatiOrganisationType } from './iati-organisation-types.js';
export { accessTokenRoutes } from './access-tokens.routes.js';
export { memberships } from './memberships.repo.js';
export {
  ageBandsOf,
  countMembers,
  defaultLocaleOf,
  deleteMember,
  findMember,
  findOrganization,
  insertMember,
  isMemberByEmail,
  listMembers,
  lockAdmins,
  publicOrganization,
  recipientLocale,
  requiresSeparateApproval,
  setMemberRole,
  showsQualityNotes,
} from './orgs.repo.js';
export { createOrganization, type NewOrganization } from './orgs.service.js';
export { organizationRoutes } from './orgs.routes.js';
export {
  AcceptedInvitation,
  Invitation,
  InvitationLookup,
  InviteBody,
  Member,
  Role,
  RoleBody,
  TokenParams,
} from './orgs.schemas.js';
