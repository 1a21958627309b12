/**
 * No lost updates across instances (issue 23): two apps on one database and one Redis, writers holding
 * the same ETag spread over both, exactly one of them goes through. Needs REDIS_URL (skipped otherwise,
 * with a notice); without Redis each instance locks a resource for its own writes only. It tells the two
 * apart on PostgreSQL (TEST_DATABASE_URL): two apps on one PGlite share its one connection, which
 * happened to keep them apart in every run here.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { createProject, createTeam, type Team } from './helpers/factories.js';
import { call } from './helpers/http.js';

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) console.warn('conditional-instances.test.ts skipped: it needs REDIS_URL');

let first: TestApp;
let second: TestApp;
let team: Team;
beforeAll(async () => {
  if (!redisUrl) return;
  first = await buildTestApp({ REDIS_URL: redisUrl });
  second = await buildTestApp({ REDIS_URL: redisUrl }, { database: first.database });
  team = await createTeam(first.app, first.database.db);
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

it.skipIf(!redisUrl)('lets one of several writers on two instances through with the same ETag', async () => {
  for (let round = 0; round < 3; round += 1) {
    const project = await createProject(first.database.db, team.org.id);
    const url = `/orgs/${team.org.id}/projects/${project.id}`;
    const read = await call(first.app, 'GET', url, { as: team.admin });
    const etag = String(read.headers.etag);
    expect((await call(second.app, 'GET', url, { as: team.admin })).headers.etag).toBe(etag);
    const results = await Promise.all(
      [first, second, first, second, first, second].map(({ app }, i) =>
        call(app, 'PATCH', url, {
          as: team.admin,
          body: { name: `Writer ${i}` },
          headers: { 'if-match': etag },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect((await call(second.app, 'GET', url, { as: team.admin })).body.name).toBe(winner.body.name);
  }
});
