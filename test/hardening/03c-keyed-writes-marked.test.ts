/**
 * Issue 36, finding 3, swept over the route table: every org POST that succeeds with an
 * `Idempotency-Key` must have marked its key `committed` in the transaction of its write, so that when
 * its answer cannot be recorded a retry never runs the write again. The review of the fix found five
 * creates (activities, budget lines, project members and indicators, reports) and a webhook's secret
 * rotation writing outside `transaction()`: their keys stayed `running`, taken over and run again after five minutes.
 * Here recording any answer fails (a trigger), as it does when the database stops after the commit.
 */
import { and, eq } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idempotencyKeys } from '../../src/modules/idempotency/idempotency.tables.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import type { Team } from '../helpers/factories.js';
import { call } from '../helpers/http.js';
import {
  BODIES,
  MULTIPART,
  orgRoutes,
  pathFor,
  pdf,
  routeName,
  teamWithResources,
  type Ids,
} from '../helpers/route-calls.js';

/** POSTs that change nothing in the database when they succeed: nothing to mark. */
const WRITE_NOTHING = new Set<string>([]);

let t: TestApp;
let team: Team;
let ids: Ids;

beforeAll(async () => {
  t = await buildTestApp();
  ({ team, ids } = await teamWithResources(t.app, t.database.db, 'Sweep'));
  await t.database.db.execute(sql`
    CREATE FUNCTION refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the answer cannot be recorded'; END $$`);
  await t.database.db.execute(sql`
    CREATE TRIGGER refuse_answer BEFORE UPDATE ON idempotency_keys
      FOR EACH ROW WHEN (NEW.state = 'completed') EXECUTE FUNCTION refuse_answer()`);
}, 120_000);
afterAll(() => t.close());

it('every keyed org POST that succeeds leaves its key committed', async () => {
  const posts = orgRoutes(t.app).filter((route) => route.method === 'POST');
  expect(posts.length).toBeGreaterThan(15);
  const unmarked: string[] = [];
  let succeeded = 0;
  for (const [index, route] of posts.entries()) {
    const name = routeName(route);
    const body = BODIES[name];
    const key = `sweep-${index}`;
    const part = MULTIPART.has(name) ? pdf() : { body: body ? body(ids) : {}, headers: {} };
    const res = await call(t.app, 'POST', pathFor(route, team.org.id, ids), {
      as: team.admin,
      body: part.body,
      headers: { ...part.headers, 'idempotency-key': key },
    });
    if (res.status >= 300) continue;
    succeeded += 1;
    const [row] = await t.database.db
      .select({ state: idempotencyKeys.state })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, `user:${team.admin.id}`), eq(idempotencyKeys.key, key)));
    if (row?.state !== 'committed' && !WRITE_NOTHING.has(name)) unmarked.push(`${name}: ${row?.state}`);
  }
  // Most succeed: the rest need a state the others left (a duplicate, a resource deleted before).
  expect(succeeded, `${succeeded} of ${posts.length}`).toBeGreaterThan(10);
  expect(unmarked).toEqual([]);
}, 120_000);
