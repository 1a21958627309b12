import type { Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';

export interface ProgramProject {
  id: string;
  name: string;
  status: string;
}

/**
 * What a program needs to know of its projects. Projects sit above programs in the module order
 * (a project points at its program), so programs never import them: the projects module answers
 * (src/modules/projects/program-projects.ts) and `buildApp` hands the answer in.
 */
export interface ProgramProjects {
  /** The program's projects the member may see, by name. */
  list(db: Db, member: Member, programId: string): Promise<ProgramProject[]>;
  /** How many projects the member may see in each of these programs (absent: none). */
  count(db: Db, member: Member, programIds: string[]): Promise<Map<string, number>>;
  /**
   * Locks the program's projects for its delete (a concurrent activation waits) and tells whether one
   * is active: SPEC.md refuses the delete then.
   */
  lockForDelete(tx: Db, orgId: string, programId: string): Promise<{ anyActive: boolean }>;
}
