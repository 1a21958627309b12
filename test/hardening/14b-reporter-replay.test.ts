/**
 * Issue 36, finding 14 (second part): a kept answer was replayed to a reporter who had since lost the
 * project. A reporter's key keeps the projects assigned when it was claimed; a replay to a reporter who
 * no longer has one of them is refused (403), as the request itself would be.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { projectMembers } from '../../src/modules/projects/projects.tables.js';
import { activitiesUrl } from '../helpers/activities.js';
import { assignProject, createProject } from '../helpers/factories.js';
import { CONTRIBUTORS, notAssigned } from '../helpers/http.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

const create = (projectId: string, key: string) =>
  t.app.inject({
    method: 'POST',
    url: activitiesUrl(team.org.id, projectId),
    headers: { authorization: `Bearer ${team.reporter.token}`, 'idempotency-key': key },
    payload: { title: 'Hygiene training', startDate: '2026-02-01', endDate: '2026-02-03' },
  });

describe("a reporter's kept answer", () => {
  it('is replayed while the reporter keeps the project, also after gaining another', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const first = await create(project.id, 'kept-1');
    expect(first.statusCode, first.body).toBe(201);
    const other = await createProject(t.database.db, team.org.id, 'Other project');
    await assignProject(t.database.db, team.org.id, other.id, team.reporter.id);
    const again = await create(project.id, 'kept-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
  });

  it('is refused (403) once the reporter lost the project', async () => {
    const project = await createProject(t.database.db, team.org.id);
    await assignProject(t.database.db, team.org.id, project.id, team.reporter.id);
    const first = await create(project.id, 'lost-1');
    expect(first.statusCode, first.body).toBe(201);
    await t.database.db
      .delete(projectMembers)
      .where(and(eq(projectMembers.projectId, project.id), eq(projectMembers.userId, team.reporter.id)));
    const again = await create(project.id, 'lost-1');
    expect(again.statusCode, again.body).toBe(403);
    expect(again.json()).toEqual(notAssigned(CONTRIBUTORS));
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it("an officer's replay is not affected", async () => {
    const project = await createProject(t.database.db, team.org.id);
    const create = (key: string) =>
      t.app.inject({
        method: 'POST',
        url: activitiesUrl(team.org.id, project.id),
        headers: { authorization: `Bearer ${team.officer.token}`, 'idempotency-key': key },
        payload: { title: 'Training', startDate: '2026-02-01', endDate: '2026-02-03' },
      });
    const first = await create('officer-1');
    const again = await create('officer-1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
  });
});
