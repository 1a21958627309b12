/** What other modules and the entry points may use of the members module (README, "Module order"). */
export { InvitationService } from './invitations.service.js';
export { memberRoutes } from './members.routes.js';
