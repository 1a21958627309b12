import { describe, expect, it } from 'vitest';
import { call } from '../../../test/helpers/http.js';
import { createProgram } from '../../../test/helpers/results.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();

const TAKEN = 'A result node with this code already exists in the program';
const taken = { statusCode: 409, message: TAKEN, error: 'Conflict', code: 'duplicate' };

const create = (programId: string, body: object) =>
  call(t.app, 'POST', `/orgs/${team.org.id}/programs/${programId}/result-nodes`, { as: team.officer, body });
const patch = (id: string, body: object) =>
  call(t.app, 'PATCH', `/orgs/${team.org.id}/result-nodes/${id}`, { as: team.officer, body });

describe('result node codes', () => {
  it('are unique in a program whatever their case, not across programs', async () => {
    const p = await createProgram(t.database.db, team.org.id);
    const first = await create(p.id, { level: 'impact', code: 'IMP-1', title: 'Impact' });
    expect([first.status, first.body.code]).toEqual([201, 'IMP-1']);
    const twice = await create(p.id, { level: 'impact', code: 'imp-1', title: 'Another' });
    expect([twice.status, twice.body]).toEqual([409, taken]);
    const other = await createProgram(t.database.db, team.org.id, 'Other program');
    expect((await create(other.id, { level: 'impact', code: 'IMP-1', title: 'Elsewhere' })).status).toBe(201);
    const none = await create(p.id, { level: 'impact', title: 'No code' });
    expect([none.status, none.body.code]).toEqual([201, null]);
  });

  it('change and go by PATCH, and are refused when taken or malformed', async () => {
    const p = await createProgram(t.database.db, team.org.id);
    const a = (await create(p.id, { level: 'impact', code: '1', title: 'A' })).body;
    const b = (await create(p.id, { level: 'impact', code: '2', title: 'B' })).body;
    const clash = await patch(b.id, { code: '1' });
    expect([clash.status, clash.body]).toEqual([409, taken]);
    const renamed = await patch(a.id, { code: '1.0' });
    expect([renamed.status, renamed.body.code, renamed.body.title]).toEqual([200, '1.0', 'A']);
    // Its own code again is no clash.
    expect((await patch(a.id, { code: '1.0' })).status).toBe(200);
    const removed = await patch(a.id, { code: null });
    expect([removed.status, removed.body.code]).toEqual([200, null]);
    const bad = await create(p.id, { level: 'impact', code: '1 2', title: 'Spaces' });
    expect([bad.status, bad.body.message]).toEqual([
      400,
      ['code must be 1 to 32 letters, digits, dots, dashes or underscores, starting with a letter or digit'],
    ]);
  });
});
