import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/** First key of the two-key advisory locks; the second is the project and period, or the organization. */
const RULE_CHECK_LOCK = 61_052_311;
const ORG_RULE_CHECK_LOCK = 61_052_312;

/**
 * The most project and period locks a write takes; above, it takes its organization's whole rule check
 * at once. Each advisory lock holds a slot of PostgreSQL's shared lock table (max_locks_per_transaction
 * times max_connections, 6,400 by default): an import over thousands of projects and periods must not
 * fill it ("out of shared memory"). High enough that an ordinary import (a few projects' periods) never
 * stops the organization's other writes, form submissions among them, for its duration.
 */
export const MOST_PAIR_LOCKS = 512;

/**
 * Takes, until the transaction ends, the lock on the rule check of each project and reporting period
 * given: the validation rules read every value of a project and period, so two writes of a rule's inputs
 * there take turns, and the second checks the rules against the first's committed value (under READ
 * COMMITTED each would otherwise read the other's old one, and the flags stored after both would be
 * wrong). Every write that checks the rules takes it before it locks or reads the reports it writes.
 *
 * Two levels: a write of a few pairs holds its organization's lock shared, then each pair's lock, in one
 * statement (the organization's first, then the pairs in key order, so that two writes never wait on each
 * other in a circle); a write of more pairs, or a rule checked over all values, holds the organization's
 * lock alone, exclusively (`lockAllRuleChecks`). Taken whether or not a rule reads the values: one
 * statement, and a rule written meanwhile cannot slip between a look for rules and the check.
 */
export async function lockRuleChecks(
  tx: Db,
  orgId: string,
  pairs: readonly { projectId: string; reportingPeriodId: string }[],
): Promise<void> {
  const names = [...new Set(pairs.map((p) => `${orgId}:${p.projectId}:${p.reportingPeriodId}`))];
  if (names.length === 0) return;
  if (names.length > MOST_PAIR_LOCKS) return lockAllRuleChecks(tx, orgId);
  // The sort reads its whole input (the organization's lock taken in the join) before the select list's
  // locks are taken, in key order (a function of the select list is evaluated after ORDER BY).
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${RULE_CHECK_LOCK}, k)
    FROM (SELECT DISTINCT hashtext(name) AS k
      FROM jsonb_array_elements_text(${JSON.stringify(names)}::jsonb) AS name,
        (SELECT pg_advisory_xact_lock_shared(${ORG_RULE_CHECK_LOCK}, hashtext(${orgId}))) AS org) AS keys
    ORDER BY k`);
}

/** The whole organization's rule check, until the transaction ends: every write of its values waits. */
export async function lockAllRuleChecks(tx: Db, orgId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${ORG_RULE_CHECK_LOCK}, hashtext(${orgId}))`);
}
