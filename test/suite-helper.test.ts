/** useSuite(): the file's app and team, ready in tests, and a clear error when read while the file loads. */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/http.js';
import { useSuite } from './helpers/suite.js';

const { t, team } = useSuite();
let readAtLoad: unknown;
try {
  readAtLoad = team.org;
} catch (err) {
  readAtLoad = err;
}

describe('useSuite()', () => {
  it('refuses a read while the file loads, saying where to read', () => {
    expect(readAtLoad).toEqual(
      new Error('useSuite(): the team is made in beforeAll; read it in a test or a hook'),
    );
  });

  it('hands the tests a working app and a team with one member per role', async () => {
    const res = await call(t.app, 'GET', `/orgs/${team.org.id}`, { as: team.admin });
    expect([res.status, res.body]).toEqual([200, expect.objectContaining({ id: team.org.id })]);
    expect(Object.keys(team).sort()).toEqual([
      'admin',
      'officer',
      'org',
      'outsider',
      'outsiderOrg',
      'reporter',
      'viewer',
    ]);
    expect({ ...team.officer }).toEqual(team.officer);
  });
});
