import { describe, expect, it } from 'vitest';
import {
  MISSING_ID,
  badRequest,
  call,
  expectError,
  expectViolations,
  notFoundBody,
  TIMESTAMP,
  UNAUTHORIZED,
  ALL_ROLES,
  MANAGERS,
  notAMember,
  refusedTo,
} from '../../../test/helpers/http.js';
import { createProgram, insertResultNode, storedChildren } from '../../../test/helpers/results.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const nodesUrl = (programId: string, orgId = team.org.id) =>
  `/orgs/${orgId}/programs/${programId}/result-nodes`;
const program = () => createProgram(t.database.db, team.org.id);
const node = (
  ...args: Parameters<typeof insertResultNode> extends [unknown, unknown, ...infer R] ? R : never
) => insertResultNode(t.database.db, team.org.id, ...args);

/** A node as the API returns it. */
const json = (row: Awaited<ReturnType<typeof insertResultNode>>) => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

describe('GET /orgs/:orgId/programs/:programId/result-nodes', () => {
  it('returns the impacts with their children nested, siblings by orderIndex then id', async () => {
    const p = await program();
    const impactB = await node(p.id, 'impact', null, 1, 'Impact B');
    const impactA = await node(p.id, 'impact', null, 0, 'Impact A');
    const [tie1, tie2] = [
      await node(p.id, 'outcome', impactA.id, 0, 'Outcome tie'),
      await node(p.id, 'outcome', impactA.id, 0, 'Outcome tie'),
    ].sort((a, b) => a.id.localeCompare(b.id));
    const later = await node(p.id, 'outcome', impactA.id, 3, 'Outcome later');
    const output2 = await node(p.id, 'output', tie1!.id, 1, 'Output 2');
    const output1 = await node(p.id, 'output', tie1!.id, 0, 'Output 1');
    await node((await program()).id, 'impact', null, 0, 'Another program');

    const res = await call(t.app, 'GET', nodesUrl(p.id), { as: team.viewer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        ...json(impactA),
        children: [
          {
            ...json(tie1!),
            children: [
              { ...json(output1), children: [] },
              { ...json(output2), children: [] },
            ],
          },
          { ...json(tie2!), children: [] },
          { ...json(later), children: [] },
        ],
      },
      { ...json(impactB), children: [] },
    ]);
  });

  it('returns an empty array for a program without nodes, and ignores paging (a tree is not paged)', async () => {
    const p = await program();
    expect((await call(t.app, 'GET', nodesUrl(p.id), { as: team.admin })).body).toEqual([]);
    await node(p.id, 'impact', null, 0);
    const paged = await call(t.app, 'GET', `${nodesUrl(p.id)}?page=1&limit=1`, { as: team.admin });
    expect(paged.status).toBe(200);
    expect(paged.body).toHaveLength(1);
    expect(paged.body[0].children).toEqual([]);
  });

  it('lets every role read, refuses outsiders (403) and anonymous callers (401)', async () => {
    const p = await program();
    for (const user of [team.admin, team.officer, team.reporter, team.viewer]) {
      expect((await call(t.app, 'GET', nodesUrl(p.id), { as: user })).status).toBe(200);
    }
    expectError(await call(t.app, 'GET', nodesUrl(p.id), { as: team.outsider }), notAMember(ALL_ROLES));
    expectError(await call(t.app, 'GET', nodesUrl(p.id)), UNAUTHORIZED);
  });

  it('answers 404 for a program of another organization or a missing one, 400 for a non-UUID', async () => {
    const foreign = await createProgram(t.database.db, team.outsiderOrg.id);
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await call(t.app, 'GET', nodesUrl(id), { as: team.reporter }), notFoundBody('Program'));
    }
    expectError(
      await call(t.app, 'GET', nodesUrl('nope'), { as: team.admin }),
      badRequest('programId must be a UUID'),
    );
  });
});

describe('POST /orgs/:orgId/programs/:programId/result-nodes', () => {
  it('creates an impact, an outcome under it and an output under that (201), each last of its siblings', async () => {
    const p = await program();
    const impact = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'impact', title: '  Healthier communities ', description: 'Long-term change' },
    });
    expect(impact.status).toBe(201);
    expect(impact.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      programId: p.id,
      parentId: null,
      level: 'impact',
      code: null,
      title: 'Healthier communities',
      description: 'Long-term change',
      orderIndex: 0,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const second = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.admin,
      body: { level: 'impact', parentId: null, title: 'Resilient livelihoods' },
    });
    expect(second.body).toMatchObject({ parentId: null, orderIndex: 1, description: null });

    const outcome = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'outcome', parentId: impact.body.id, title: 'Safe water used' },
    });
    expect(outcome.status).toBe(201);
    expect(outcome.body).toMatchObject({ level: 'outcome', parentId: impact.body.id, orderIndex: 0 });
    const output = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'output', parentId: outcome.body.id, title: 'Wells built', description: null },
    });
    expect(output.status).toBe(201);
    expect(output.body).toMatchObject({ level: 'output', parentId: outcome.body.id, orderIndex: 0 });

    const tree = await call(t.app, 'GET', nodesUrl(p.id), { as: team.viewer });
    expect(tree.body).toEqual([
      { ...impact.body, children: [{ ...outcome.body, children: [{ ...output.body, children: [] }] }] },
      { ...second.body, children: [] },
    ]);
  });

  it('inserts at a given orderIndex, moving later siblings down; past the end means last', async () => {
    const p = await program();
    const a = await node(p.id, 'impact', null, 0);
    const b = await node(p.id, 'impact', null, 1);
    const first = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'impact', title: 'First', orderIndex: 0 },
    });
    expect(first.body.orderIndex).toBe(0);
    const middle = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'impact', title: 'Middle', orderIndex: 2 },
    });
    expect(middle.body.orderIndex).toBe(2);
    const last = await call(t.app, 'POST', nodesUrl(p.id), {
      as: team.officer,
      body: { level: 'impact', title: 'Last', orderIndex: 99 },
    });
    expect(last.body.orderIndex).toBe(4);
    expect(await storedChildren(t.database.db, p.id, null)).toEqual([
      { id: first.body.id, orderIndex: 0 },
      { id: a.id, orderIndex: 1 },
      { id: middle.body.id, orderIndex: 2 },
      { id: b.id, orderIndex: 3 },
      { id: last.body.id, orderIndex: 4 },
    ]);
  });

  it('gives concurrent creations distinct positions 0..n-1', async () => {
    const p = await program();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(t.app, 'POST', nodesUrl(p.id), { as: team.officer, body: { level: 'impact', title: `N${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const stored = await storedChildren(t.database.db, p.id, null);
    expect(stored.map((n) => n.orderIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('enforces the level of the parent, in the same program (400)', async () => {
    const p = await program();
    const impact = await node(p.id, 'impact', null, 0);
    const outcome = await node(p.id, 'outcome', impact.id, 0);
    const output = await node(p.id, 'output', outcome.id, 0);
    const other = await program();
    const otherImpact = await node(other.id, 'impact', null, 0);
    const otherOutcome = await node(other.id, 'outcome', otherImpact.id, 0);
    const cases: [string, string | null | undefined, string][] = [
      ['impact', impact.id, 'parentId must be null for an impact node'],
      ['outcome', null, 'parentId must be an impact node of this program'],
      ['outcome', undefined, 'parentId must be an impact node of this program'],
      ['outcome', outcome.id, 'parentId must be an impact node of this program'],
      ['outcome', otherImpact.id, 'parentId must be an impact node of this program'],
      ['output', impact.id, 'parentId must be an outcome node of this program'],
      ['output', output.id, 'parentId must be an outcome node of this program'],
      ['output', otherOutcome.id, 'parentId must be an outcome node of this program'],
      ['output', null, 'parentId must be an outcome node of this program'],
    ];
    for (const [level, parentId, message] of cases) {
      const body = { level, title: 'X', ...(parentId !== undefined ? { parentId } : {}) };
      expectError(await call(t.app, 'POST', nodesUrl(p.id), { as: team.officer, body }), badRequest(message));
    }
    expect(await storedChildren(t.database.db, p.id, null)).toHaveLength(1);
  });

  it('validates the body: required fields, types, blank title, read-only and unknown properties', async () => {
    const p = await program();
    const post = (body: unknown) => call(t.app, 'POST', nodesUrl(p.id), { as: team.officer, body });
    expectViolations(await post({}), 'level is required', 'title is required');
    expectViolations(
      await post({ level: 'goal', title: ' ', orderIndex: -1, parentId: 'x' }),
      'level must be one of impact, outcome, output',
      'title should not be empty',
      'orderIndex must not be less than 0',
      'parentId must be a UUID',
    );
    expectViolations(
      await post({ level: 'impact', title: 'X', orderIndex: 1.5 }),
      'orderIndex must be an integer',
    );
    expectViolations(
      await post({ level: 'impact', title: 'X', description: 5, parentId: 7 }),
      'description must be a string',
      'parentId must be a string',
    );
    expectViolations(
      await post({ level: 'impact', title: 'X', id: MISSING_ID, orgId: team.org.id, programId: p.id }),
      'property id should not exist',
      'property orgId should not exist',
      'property programId should not exist',
    );
    expectViolations(
      await post({ level: 'impact', title: 'x'.repeat(501) }),
      'title must be at most 500 characters',
    );
  });

  it('answers 404 for a parent or a program of another organization, or missing ones', async () => {
    const p = await program();
    const foreignProgram = await createProgram(t.database.db, team.outsiderOrg.id);
    const foreignImpact = await insertResultNode(
      t.database.db,
      team.outsiderOrg.id,
      foreignProgram.id,
      'impact',
      null,
      0,
    );
    for (const parentId of [foreignImpact.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'POST', nodesUrl(p.id), {
          as: team.officer,
          body: { level: 'outcome', parentId, title: 'X' },
        }),
        notFoundBody('Result node'),
      );
    }
    for (const programId of [foreignProgram.id, MISSING_ID]) {
      expectError(
        await call(t.app, 'POST', nodesUrl(programId), {
          as: team.admin,
          body: { level: 'impact', title: 'X' },
        }),
        notFoundBody('Program'),
      );
    }
  });

  it('refuses reporters and viewers (403), outsiders (403) and anonymous callers (401)', async () => {
    const p = await program();
    const body = { level: 'impact', title: 'X' };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(
        await call(t.app, 'POST', nodesUrl(p.id), { as: user, body }),
        refusedTo(team, user, MANAGERS),
      );
    }
    expectError(await call(t.app, 'POST', nodesUrl(p.id), { body }), UNAUTHORIZED);
    expect(await storedChildren(t.database.db, p.id, null)).toEqual([]);
  });
});
