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
  MANAGERS,
  refusedTo,
} from '../../../test/helpers/http.js';
import { createProgram, insertResultNode, storedChildren } from '../../../test/helpers/results.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const reorderUrl = (orgId = team.org.id) => `/orgs/${orgId}/result-nodes/reorder`;
const reorder = (body: unknown, as = team.officer) => call(t.app, 'PATCH', reorderUrl(), { as, body });
const node = (
  programId: string,
  level: 'impact' | 'outcome' | 'output',
  parentId: string | null,
  at: number,
) => insertResultNode(t.database.db, team.org.id, programId, level, parentId, at);

/** Three impacts; the first has three outcomes. */
async function framework() {
  const p = await createProgram(t.database.db, team.org.id);
  const [i0, i1, i2] = [
    await node(p.id, 'impact', null, 0),
    await node(p.id, 'impact', null, 1),
    await node(p.id, 'impact', null, 2),
  ];
  const [o0, o1, o2] = [
    await node(p.id, 'outcome', i0.id, 0),
    await node(p.id, 'outcome', i0.id, 1),
    await node(p.id, 'outcome', i0.id, 2),
  ];
  return { p, i0: i0, i1: i1, i2: i2, o0: o0, o1: o1, o2: o2 };
}

describe('PATCH /orgs/:orgId/result-nodes/reorder', () => {
  it('reorders the impacts of a program and answers them in their new order, positions 0..n-1', async () => {
    const { p, i0, i1, i2 } = await framework();
    const res = await reorder({ parentId: null, programId: p.id, orderedIds: [i2.id, i0.id, i1.id] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      [i2, i0, i1].map((n, index) => ({
        id: n.id,
        orgId: team.org.id,
        programId: p.id,
        parentId: null,
        level: 'impact',
        code: null,
        title: n.title,
        description: null,
        orderIndex: index,
        createdAt: n.createdAt.toISOString(),
        updatedAt: expect.stringMatching(TIMESTAMP),
      })),
    );
    expect(await storedChildren(t.database.db, p.id, null)).toEqual([
      { id: i2.id, orderIndex: 0 },
      { id: i0.id, orderIndex: 1 },
      { id: i1.id, orderIndex: 2 },
    ]);
    const tree = await call(t.app, 'GET', `/orgs/${team.org.id}/programs/${p.id}/result-nodes`, {
      as: team.viewer,
    });
    expect(tree.body.map((n: { id: string }) => n.id)).toEqual([i2.id, i0.id, i1.id]);
  });

  it('reorders the children of a node, with or without its programId; a childless node takes []', async () => {
    const { p, i0, i1, o0, o1, o2 } = await framework();
    const res = await reorder({ parentId: i0.id, orderedIds: [o1.id, o2.id, o0.id] }, team.admin);
    expect(res.status).toBe(200);
    expect(res.body.map((n: { id: string; orderIndex: number }) => [n.id, n.orderIndex])).toEqual([
      [o1.id, 0],
      [o2.id, 1],
      [o0.id, 2],
    ]);
    const again = await reorder({ parentId: i0.id, programId: p.id, orderedIds: [o0.id, o1.id, o2.id] });
    expect(again.body.map((n: { id: string }) => n.id)).toEqual([o0.id, o1.id, o2.id]);
    const empty = await reorder({ parentId: i1.id, orderedIds: [] });
    expect([empty.status, empty.body]).toEqual([200, []]);
  });

  it('is the reorder route, never a node update with the id "reorder"', async () => {
    expectViolations(
      await reorder({ title: 'X' }),
      'parentId is required',
      'orderedIds is required',
      'property title should not exist',
    );
    expectError(
      await call(t.app, 'DELETE', reorderUrl(), { as: team.officer }),
      badRequest('id must be a UUID'),
    );
  });

  it('requires exactly the parent’s children, each once (400)', async () => {
    const { p, i0, i1, i2, o0, o1, o2 } = await framework();
    const other = await framework();
    expectError(
      await reorder({ parentId: null, orderedIds: [i0.id, i1.id, i2.id] }),
      badRequest('programId is required when parentId is null'),
    );
    expectError(
      await reorder({ parentId: i0.id, orderedIds: [o0.id, o1.id] }),
      badRequest(`orderedIds must include ${o2.id}`),
    );
    expectError(
      await reorder({ parentId: i0.id, orderedIds: [o0.id, o1.id, o2.id, i1.id] }),
      badRequest('orderedIds.3 is not a child of parentId'),
    );
    expectError(
      await reorder({ parentId: null, programId: p.id, orderedIds: [other.i0.id, i1.id, i2.id] }),
      badRequest('orderedIds.0 is not an impact node of programId', `orderedIds must include ${i0.id}`),
    );
    expectError(
      await reorder({ parentId: i0.id, orderedIds: [] }),
      badRequest(...[o0, o1, o2].map((o) => `orderedIds must include ${o.id}`)),
    );
    expectError(
      await reorder({ parentId: i0.id, programId: other.p.id, orderedIds: [o0.id, o1.id, o2.id] }),
      badRequest('parentId must be a node of programId'),
    );
    expectViolations(
      await reorder({ parentId: i0.id, orderedIds: [o0.id, o0.id, o1.id, o2.id] }),
      'orderedIds must not contain duplicates',
    );
    expectViolations(
      await reorder({ parentId: 'x', programId: 5, orderedIds: ['y'], extra: true }),
      'parentId must be a UUID',
      'programId must be a string',
      'orderedIds.0 must be a UUID',
      'property extra should not exist',
    );
    expect(await storedChildren(t.database.db, p.id, i0.id)).toEqual([
      { id: o0.id, orderIndex: 0 },
      { id: o1.id, orderIndex: 1 },
      { id: o2.id, orderIndex: 2 },
    ]);
  });

  it('answers 404 for a parent, program or listed id of another organization, or missing ones', async () => {
    const { p, i0, o0, o1, o2 } = await framework();
    const foreignProgram = await createProgram(t.database.db, team.outsiderOrg.id);
    const foreign = await insertResultNode(
      t.database.db,
      team.outsiderOrg.id,
      foreignProgram.id,
      'impact',
      null,
      0,
    );
    for (const id of [foreign.id, MISSING_ID]) {
      expectError(await reorder({ parentId: id, orderedIds: [] }), notFoundBody('Result node'));
      expectError(
        await reorder({ parentId: i0.id, orderedIds: [o0.id, o1.id, o2.id, id] }),
        notFoundBody('Result node'),
      );
    }
    for (const programId of [foreignProgram.id, MISSING_ID]) {
      expectError(await reorder({ parentId: null, programId, orderedIds: [] }), notFoundBody('Program'));
    }
    expectError(
      await reorder({ parentId: null, programId: p.id, orderedIds: [foreign.id] }, team.admin),
      notFoundBody('Result node'),
    );
  });

  it('refuses reporters, viewers and outsiders (403) and anonymous callers (401)', async () => {
    const { p, i0, i1, i2 } = await framework();
    const body = { parentId: null, programId: p.id, orderedIds: [i2.id, i1.id, i0.id] };
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await reorder(body, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'PATCH', reorderUrl(), { body }), UNAUTHORIZED);
    expect((await storedChildren(t.database.db, p.id, null)).map((n) => n.id)).toEqual([i0.id, i1.id, i2.id]);
  });
});
