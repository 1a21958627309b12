/** What other modules and the entry points may use of the projects module (docs/architecture.md, "Module order"). */
export { programProjects } from './program-projects.js';
export { assignedProjectIds } from './project-members.repo.js';
export { projectMemberRoutes } from './project-members.routes.js';
export { ensureProjectAccess, requireProject } from './project-scope.js';
export { findProject, projectExists } from './projects.repo.js';
export { projectRoutes } from './projects.routes.js';
export type { PROJECT_STATUSES, ProjectStatus } from './projects.schemas.js';
export { assignedVisibility, type ProjectVisibility, visibilityOf, visibleTo } from './visibility.js';
