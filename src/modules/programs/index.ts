/** What other modules and the entry points may use of the programs module (docs/architecture.md, "Module order"). */
export type { ProgramProjects } from './program-projects.js';
export { listDonorsOfPrograms, lockProgramForShare, programExists } from './programs.repo.js';
export { programRoutes } from './programs.routes.js';
