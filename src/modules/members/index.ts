/** What other modules and the entry points may use of the members module (docs/architecture.md, "Module order"). */
export { hasOpenInvitation } from './invitations.repo.js';
export { InvitationService } from './invitations.service.js';
export { memberRoutes } from './members.routes.js';
