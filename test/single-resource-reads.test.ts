/**
 * The single GETs of resources that had writes but no read of their own (issue 23): reporting periods,
 * budget lines, result nodes. Same roles as their lists; reporters limited to assigned projects as the
 * lists are; another organization's id is a 404, another organization's path a 403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { assignProject, createProject, createTeam, type Team, type TestUser } from './helpers/factories.js';
import {
  badRequest,
  call,
  ALL_ROLES,
  notAMember,
  notAssigned,
  MISSING_ID,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
} from './helpers/http.js';
import { createPeriod, periodJson } from './helpers/periods.js';
import { createProgram, insertResultNode } from './helpers/results.js';

let t: TestApp;
let team: Team;
/** A project the team's reporter is assigned to, and one they are not. */
let assigned: { id: string };
let unassigned: { id: string };
/** Another organization's project (the outsider's). */
let theirs: { id: string };

beforeAll(async () => {
  t = await buildTestApp();
  team = await createTeam(t.app, t.database.db);
  assigned = await createProject(t.database.db, team.org.id, 'Assigned');
  unassigned = await createProject(t.database.db, team.org.id, 'Not assigned');
  theirs = await createProject(t.database.db, team.outsiderOrg.id, 'Theirs');
  await assignProject(t.database.db, team.org.id, assigned.id, team.reporter.id);
});
afterAll(() => t.close());

const everyone = () => [team.viewer, team.reporter, team.officer, team.admin];
const get = (url: string, as: TestUser | null) => call(t.app, 'GET', url, { as });

describe('GET /orgs/:orgId/reporting-periods/:id', () => {
  const url = (id: string, orgId = team.org.id) => `/orgs/${orgId}/reporting-periods/${id}`;

  it('answers every role with the period, its lock state included', async () => {
    const period = await createPeriod(t.database.db, team.org.id, assigned.id, {
      dueDate: '2026-04-15',
      isLocked: true,
      lockedAt: new Date('2026-04-16T08:00:00.000Z'),
      lockedBy: team.officer.id,
    });
    for (const as of everyone()) {
      const res = await get(url(period.id), as);
      expect([res.status, res.body]).toEqual([200, periodJson(period)]);
      expect(res.body.lockedAt).toBe('2026-04-16T08:00:00.000Z');
    }
  });

  it('refuses a reporter a period of a project not assigned to them (403), and strangers', async () => {
    const period = await createPeriod(t.database.db, team.org.id, unassigned.id);
    expect((await get(url(period.id), team.reporter)).body).toEqual(notAssigned(ALL_ROLES));
    expect((await get(url(period.id), team.officer)).status).toBe(200);
    expect((await get(url(period.id), null)).body).toEqual(UNAUTHORIZED);
    const foreign = await get(url(period.id), team.outsider);
    expect([foreign.status, foreign.body]).toEqual([403, notAMember(ALL_ROLES)]);
  });

  it('answers 404 for an unknown id and for another organization’s period, 400 for no UUID', async () => {
    const other = await createPeriod(t.database.db, team.outsiderOrg.id, theirs.id);
    expect((await get(url(MISSING_ID), team.admin)).body).toEqual(notFoundBody('Reporting period'));
    expect((await get(url(other.id), team.admin)).body).toEqual(notFoundBody('Reporting period'));
    const owner = await get(url(other.id, team.outsiderOrg.id), team.outsider);
    expect(owner.status).toBe(200);
    const bad = await get(url('nope'), team.admin);
    expect([bad.status, bad.body.message]).toEqual([400, badRequest('id must be a UUID').message]);
  });
});

describe('GET /orgs/:orgId/budget-lines/:id', () => {
  const url = (id: string, orgId = team.org.id) => `/orgs/${orgId}/budget-lines/${id}`;
  const addLine = async (projectId: string, orgId = team.org.id, as = team.officer) => {
    const res = await call(t.app, 'POST', `/orgs/${orgId}/projects/${projectId}/budget-lines`, {
      as,
      body: { category: 'Travel', description: 'Field visits', plannedAmount: 1500.5, actualAmount: 20 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as Record<string, unknown> & { id: string };
  };

  it('answers every role with the line, as the list has it', async () => {
    const line = await addLine(assigned.id);
    expect(line).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      projectId: assigned.id,
      category: 'Travel',
      description: 'Field visits',
      plannedAmount: 1500.5,
      actualAmount: 20,
      currency: expect.any(String),
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const list = await get(`/orgs/${team.org.id}/projects/${assigned.id}/budget-lines`, team.viewer);
    expect(list.body).toEqual([line]);
    for (const as of everyone())
      expect([(await get(url(line.id), as)).body, as.email]).toEqual([line, as.email]);
  });

  it('refuses a reporter a line of a project not assigned to them (403), and strangers', async () => {
    const line = await addLine(unassigned.id);
    expect((await get(url(line.id), team.reporter)).body).toEqual(notAssigned(ALL_ROLES));
    expect((await get(url(line.id), team.viewer)).status).toBe(200);
    expect((await get(url(line.id), null)).body).toEqual(UNAUTHORIZED);
    expect((await get(url(line.id), team.outsider)).body).toEqual(notAMember(ALL_ROLES));
  });

  it('answers 404 for an unknown id and for another organization’s line', async () => {
    const other = await addLine(theirs.id, team.outsiderOrg.id, team.outsider);
    expect((await get(url(MISSING_ID), team.admin)).body).toEqual(notFoundBody('Budget line'));
    expect((await get(url(other.id), team.admin)).body).toEqual(notFoundBody('Budget line'));
    expect((await get(url(other.id, team.outsiderOrg.id), team.outsider)).body).toEqual(other);
  });
});

describe('GET /orgs/:orgId/result-nodes/:id', () => {
  const url = (id: string, orgId = team.org.id) => `/orgs/${orgId}/result-nodes/${id}`;

  it('answers every role with the node, without children (org-level data: no project scope)', async () => {
    const program = await createProgram(t.database.db, team.org.id);
    const impact = await insertResultNode(
      t.database.db,
      team.org.id,
      program.id,
      'impact',
      null,
      0,
      'Health',
    );
    const outcome = await insertResultNode(t.database.db, team.org.id, program.id, 'outcome', impact.id, 0);
    const expected = {
      ...outcome,
      createdAt: outcome.createdAt.toISOString(),
      updatedAt: outcome.updatedAt.toISOString(),
    };
    for (const as of everyone()) expect((await get(url(outcome.id), as)).body).toEqual(expected);
    const tree = await get(`/orgs/${team.org.id}/programs/${program.id}/result-nodes`, team.viewer);
    expect(tree.body[0].children[0]).toEqual({ ...expected, children: [] });
  });

  it('answers 401 without a session, 403 to strangers, 404 for unknown and foreign ids', async () => {
    const program = await createProgram(t.database.db, team.org.id);
    const ours = await insertResultNode(t.database.db, team.org.id, program.id, 'impact', null, 0);
    const theirProgram = await createProgram(t.database.db, team.outsiderOrg.id);
    const other = await insertResultNode(
      t.database.db,
      team.outsiderOrg.id,
      theirProgram.id,
      'impact',
      null,
      0,
    );
    expect((await get(url(ours.id), null)).body).toEqual(UNAUTHORIZED);
    expect((await get(url(ours.id), team.outsider)).body).toEqual(notAMember(ALL_ROLES));
    expect((await get(url(MISSING_ID), team.admin)).body).toEqual(notFoundBody('Result node'));
    expect((await get(url(other.id), team.admin)).body).toEqual(notFoundBody('Result node'));
    expect((await get(url(other.id, team.outsiderOrg.id), team.outsider)).status).toBe(200);
  });
});
