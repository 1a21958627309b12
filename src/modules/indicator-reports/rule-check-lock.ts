import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/** First key of the two-key advisory lock; the second is the project and period. Any fixed number would do. */
const RULE_CHECK_LOCK = 61_052_311;

/**
 * Takes, until the transaction ends, the lock on the rule check of each project and reporting period
 * given: the validation rules read every value of a project and period, so two writes of a rule's inputs
 * there take turns, and the second checks the rules against the first's committed value (under READ
 * COMMITTED each would otherwise read the other's old one, and the flags stored after both would be
 * wrong). Every write that checks the rules takes it before it locks or reads the reports it writes;
 * the keys of several pairs are taken in one statement, in their order, so that two writes never wait
 * on each other in a circle. Taken whether or not a rule reads the values: one statement, and a rule
 * written meanwhile cannot slip between a look for rules and the check.
 */
export async function lockRuleChecks(
  tx: Db,
  orgId: string,
  pairs: readonly { projectId: string; reportingPeriodId: string }[],
): Promise<void> {
  const names = [...new Set(pairs.map((p) => `${orgId}:${p.projectId}:${p.reportingPeriodId}`))];
  if (names.length === 0) return;
  // A function of the select list is evaluated after ORDER BY (PostgreSQL 9.6 and later): in key order.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${RULE_CHECK_LOCK}, k)
    FROM (SELECT DISTINCT hashtext(name) AS k FROM jsonb_array_elements_text(${JSON.stringify(names)}::jsonb) AS name)
      AS keys ORDER BY k`);
}
