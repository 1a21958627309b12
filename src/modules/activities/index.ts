/** What other modules and the entry points may use of the activities module (docs/architecture.md, "Module order"). */
export { activityRoutes } from './activities.routes.js';
export { participantsNotSealed, sealParticipants } from './participant-sealing.js';
export { participantRoutes } from './participants.routes.js';
export { countParticipantGroups, type ParticipantGroup } from './registrations.repo.js';
