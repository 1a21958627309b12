import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/helpers/app.js';
import type { Database } from '../../db/client.js';
import { recordReminders } from './reminders.repo.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

it('records the reminders of any number of periods in one statement (no parameter per period)', async () => {
  // 17,000 periods as a VALUES list of four parameters each would pass PostgreSQL's 65,535 and fail
  // every organization's run; none of these exists, so nothing is recorded.
  const periods = Array.from({ length: 17_000 }, () => ({
    orgId: randomUUID(),
    projectId: randomUUID(),
    periodId: randomUUID(),
    kind: 'due_in_7',
  }));
  expect(await recordReminders(database.db, periods)).toEqual([]);
});
