import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/helpers/app.js';
import { afterCommit } from './after-commit.js';
import { transaction, type Database } from './client.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('afterCommit', () => {
  it('runs once the outermost transaction has committed, not before', async () => {
    const ran: string[] = [];
    await transaction(database.db, async (tx) => {
      afterCommit(() => ran.push('outer'));
      await transaction(tx, async () => {
        afterCommit(() => ran.push('nested'));
      });
      await tx.execute(sql`SELECT 1`);
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['outer', 'nested']);
  });

  it('never runs for a transaction that rolled back', async () => {
    const ran: string[] = [];
    await expect(
      transaction(database.db, async () => {
        afterCommit(() => ran.push('rolled back'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(ran).toEqual([]);
  });

  it('runs at once outside a transaction', () => {
    let ran = false;
    afterCommit(() => (ran = true));
    expect(ran).toBe(true);
  });
});
