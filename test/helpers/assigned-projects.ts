import { beforeAll } from 'vitest';
import type { TestApp } from './app.js';
import { assignProject, createProject, type Team } from './factories.js';
import { useSuite } from './suite.js';

/** Two projects of the team's organization: the team's reporter is assigned to the first alone. */
export interface AssignedProjects {
  assigned: { id: string };
  unassigned: { id: string };
}

/**
 * A file's app and team (useSuite), and two projects made before its tests, the reporter assigned to
 * one of them. Like the app and the team, the projects are ready inside tests and hooks.
 */
export function useAssignedProjects(): { t: TestApp; team: Team; projects: AssignedProjects } {
  const { t, team } = useSuite();
  const projects = {} as AssignedProjects;
  beforeAll(async () => {
    const assigned = await createProject(t.database.db, team.org.id, 'Assigned');
    const unassigned = await createProject(t.database.db, team.org.id, 'Unassigned');
    await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
    Object.assign(projects, { assigned, unassigned });
  });
  return { t, team, projects };
}
