import type { ProgramProjects } from '../programs/index.js';
import { countProjectsOfPrograms, listProjectsOfProgram, lockProjectsOfProgram } from './projects.repo.js';
import { visibilityOf } from './visibility.js';

/** The projects module's answer to what programs ask of their projects (wired in `buildApp`). */
export const programProjects: ProgramProjects = {
  list: (db, member, programId) => listProjectsOfProgram(db, member.orgId, programId, visibilityOf(member)),
  count: (db, member, programIds) =>
    countProjectsOfPrograms(db, member.orgId, programIds, visibilityOf(member)),
  lockForDelete: async (tx, orgId, programId) => ({
    anyActive: await lockProjectsOfProgram(tx, orgId, programId),
  }),
};
