/** What other modules and the entry points may use of the orgs module (docs/architecture.md, "Module order"). */
export type { IatiOrganisationType } from './iati-organisation-types.js';
export { memberships } from './memberships.repo.js';
export {
  countMembers,
  deleteMember,
  findMember,
  findOrganization,
  insertMember,
  isMemberByEmail,
  listMembers,
  lockAdmins,
  publicOrganization,
  setMemberRole,
} from './orgs.repo.js';
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
