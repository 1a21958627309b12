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

const nodeUrl = (id: string, orgId = team.org.id) => `/orgs/${orgId}/result-nodes/${id}`;
const treeUrl = (programId: string) => `/orgs/${team.org.id}/programs/${programId}/result-nodes`;
const node = (
  programId: string,
  level: 'impact' | 'outcome' | 'output',
  parentId: string | null,
  at: number,
) => insertResultNode(t.database.db, team.org.id, programId, level, parentId, at);
const children = (programId: string, parentId: string | null) =>
  storedChildren(t.database.db, programId, parentId);
const patch = (id: string, body: unknown, as = team.officer) =>
  call(t.app, 'PATCH', nodeUrl(id), { as, body });

/** impact A (outcomes A0, A1, A2; A0 has two outputs) and impact B (outcome B0). */
async function framework() {
  const p = await createProgram(t.database.db, team.org.id);
  const a = await node(p.id, 'impact', null, 0);
  const b = await node(p.id, 'impact', null, 1);
  const a0 = await node(p.id, 'outcome', a.id, 0);
  const a1 = await node(p.id, 'outcome', a.id, 1);
  const a2 = await node(p.id, 'outcome', a.id, 2);
  const b0 = await node(p.id, 'outcome', b.id, 0);
  const out0 = await node(p.id, 'output', a0.id, 0);
  const out1 = await node(p.id, 'output', a0.id, 1);
  return { p, a, b, a0, a1, a2, b0, out0, out1 };
}

describe('PATCH /orgs/:orgId/result-nodes/:id', () => {
  it('edits the title and description and answers the whole node', async () => {
    const { p, a0 } = await framework();
    const res = await patch(a0.id, { title: ' Clean water used ', description: 'Measured yearly' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: a0.id,
      orgId: team.org.id,
      programId: p.id,
      parentId: a0.parentId,
      level: 'outcome',
      code: null,
      title: 'Clean water used',
      description: 'Measured yearly',
      orderIndex: 0,
      createdAt: a0.createdAt.toISOString(),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    expect(res.body.updatedAt).not.toBe(a0.updatedAt.toISOString());
    const cleared = await patch(a0.id, { description: null }, team.admin);
    expect(cleared.body).toMatchObject({ title: 'Clean water used', description: null });
    const unchanged = await patch(a0.id, {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(cleared.body);
  });

  it('moves a node with its children to the end of a new parent; its former siblings close the gap', async () => {
    const { p, a, b, a0, a1, a2, b0, out0, out1 } = await framework();
    const res = await patch(a0.id, { parentId: b.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a0.id, parentId: b.id, orderIndex: 1 });
    expect(await children(p.id, a.id)).toEqual([
      { id: a1.id, orderIndex: 0 },
      { id: a2.id, orderIndex: 1 },
    ]);
    expect(await children(p.id, b.id)).toEqual([
      { id: b0.id, orderIndex: 0 },
      { id: a0.id, orderIndex: 1 },
    ]);
    const tree = await call(t.app, 'GET', treeUrl(p.id), { as: team.viewer });
    const moved = tree.body[1].children[1];
    expect(moved.id).toBe(a0.id);
    expect(moved.children.map((c: { id: string }) => c.id)).toEqual([out0.id, out1.id]);
  });

  it('moves to a given position under the new parent, or within its siblings with orderIndex alone', async () => {
    const { p, a, b, a0, a1, a2, b0 } = await framework();
    expect((await patch(a2.id, { parentId: b.id, orderIndex: 0 })).body).toMatchObject({ orderIndex: 0 });
    expect(await children(p.id, b.id)).toEqual([
      { id: a2.id, orderIndex: 0 },
      { id: b0.id, orderIndex: 1 },
    ]);
    expect((await patch(a0.id, { orderIndex: 5 })).body).toMatchObject({ parentId: a.id, orderIndex: 1 });
    expect(await children(p.id, a.id)).toEqual([
      { id: a1.id, orderIndex: 0 },
      { id: a0.id, orderIndex: 1 },
    ]);
    // The same parent again is no move: the position is kept unless orderIndex says otherwise.
    expect((await patch(a1.id, { parentId: a.id })).body).toMatchObject({ orderIndex: 0 });
    expect((await patch(a1.id, { parentId: a.id, orderIndex: 1 })).body).toMatchObject({ orderIndex: 1 });
    expect((await patch(b.id, { parentId: null, orderIndex: 0 })).body).toMatchObject({ orderIndex: 0 });
    expect(await children(p.id, null)).toEqual([
      { id: b.id, orderIndex: 0 },
      { id: a.id, orderIndex: 1 },
    ]);
  });

  it('keeps the level and program: a parent of the wrong level or program is 400, level is unknown', async () => {
    const { a, b0, out0 } = await framework();
    const other = await framework();
    const cases: [string, string | null, string][] = [
      [a.id, b0.id, 'parentId must be null for an impact node'],
      [b0.id, null, 'parentId must be an impact node of this program'],
      [b0.id, out0.id, 'parentId must be an impact node of this program'],
      [b0.id, other.a.id, 'parentId must be an impact node of this program'],
      [out0.id, a.id, 'parentId must be an outcome node of this program'],
      [out0.id, other.a0.id, 'parentId must be an outcome node of this program'],
    ];
    for (const [id, parentId, message] of cases) {
      expectError(await patch(id, { parentId }), badRequest(message));
    }
    expectViolations(
      await patch(b0.id, { level: 'impact', programId: other.p.id, id: MISSING_ID, createdAt: 'x' }),
      'property level should not exist',
      'property programId should not exist',
      'property id should not exist',
      'property createdAt should not exist',
    );
    expectViolations(
      await patch(b0.id, { title: '', orderIndex: -1, parentId: 'x' }),
      'title should not be empty',
      'orderIndex must not be less than 0',
      'parentId must be a UUID',
    );
    expectError(await patch('nope', { title: 'X' }), badRequest('id must be a UUID'));
  });

  it('answers 404 for a node or a parent of another organization, or missing ones', async () => {
    const { a0 } = await framework();
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
      expectError(await patch(id, { title: 'X' }), notFoundBody('Result node'));
      expectError(await patch(a0.id, { parentId: id }), notFoundBody('Result node'));
    }
    expectError(
      await call(t.app, 'PATCH', nodeUrl(a0.id, team.outsiderOrg.id), {
        as: team.outsider,
        body: { title: 'X' },
      }),
      notFoundBody('Result node'),
    );
  });

  it('refuses reporters, viewers and outsiders (403) and anonymous callers (401)', async () => {
    const { a } = await framework();
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await patch(a.id, { title: 'X' }, user), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'PATCH', nodeUrl(a.id), { body: { title: 'X' } }), UNAUTHORIZED);
  });
});

describe('DELETE /orgs/:orgId/result-nodes/:id', () => {
  it('deletes the node and its descendants (204); the remaining siblings close the gap', async () => {
    const { p, a, b, a0, a1, a2, b0 } = await framework();
    const res = await call(t.app, 'DELETE', nodeUrl(a0.id), { as: team.officer });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(await children(p.id, a0.id)).toEqual([]);
    expect(await children(p.id, a.id)).toEqual([
      { id: a1.id, orderIndex: 0 },
      { id: a2.id, orderIndex: 1 },
    ]);
    expectError(
      await call(t.app, 'DELETE', nodeUrl(a0.id), { as: team.officer }),
      notFoundBody('Result node'),
    );

    expect((await call(t.app, 'DELETE', nodeUrl(a.id), { as: team.admin })).status).toBe(204);
    const tree = await call(t.app, 'GET', treeUrl(p.id), { as: team.viewer });
    expect(tree.body).toEqual([
      { ...tree.body[0], id: b.id, orderIndex: 0, children: [expect.objectContaining({ id: b0.id })] },
    ]);
  });

  it('answers 404 for a node of another organization or a missing one, 400 for a non-UUID', async () => {
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
      expectError(await call(t.app, 'DELETE', nodeUrl(id), { as: team.admin }), notFoundBody('Result node'));
    }
    expect(await storedChildren(t.database.db, foreignProgram.id, null)).toHaveLength(1);
    expectError(
      await call(t.app, 'DELETE', nodeUrl('nope'), { as: team.admin }),
      badRequest('id must be a UUID'),
    );
  });

  it('refuses reporters, viewers and outsiders (403) and anonymous callers (401)', async () => {
    const { p, a } = await framework();
    for (const user of [team.reporter, team.viewer, team.outsider]) {
      expectError(await call(t.app, 'DELETE', nodeUrl(a.id), { as: user }), refusedTo(team, user, MANAGERS));
    }
    expectError(await call(t.app, 'DELETE', nodeUrl(a.id)), UNAUTHORIZED);
    expect(await children(p.id, null)).toHaveLength(2);
  });
});
