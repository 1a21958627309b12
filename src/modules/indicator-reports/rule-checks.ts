import { sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../../db/client.js';
import { recheckRuleFlags } from './report-flags.js';
import { lockAllRuleChecks } from './rule-check-lock.js';

/** Project and period pairs checked in one pass: two parameters each, well under PostgreSQL's 65,535. */
const PAIRS_AT_ONCE = 2000;

/**
 * Checks a rule just written or changed over the values already saved: every project and period
 * holding a value of one of its inputs (the rules reading that input there are checked too, as a write
 * would), while the organization's writes of values wait. Flags change without a history entry: no
 * value changed.
 */
export async function checkRuleEverywhere(tx: Db, orgId: string, ruleId: string): Promise<void> {
  // No write of the organization's values runs beside: each would check the rule against old values.
  await lockAllRuleChecks(tx, orgId);
  const result = await tx.execute(sql`
    SELECT DISTINCT ON (r.project_id, r.reporting_period_id)
      r.project_id AS "projectId", r.reporting_period_id AS "reportingPeriodId", r.indicator_id AS "indicatorId"
    FROM indicator_reports r
    JOIN validation_rule_inputs vi ON vi.org_id = r.org_id AND vi.indicator_id = r.indicator_id
    WHERE r.org_id = ${orgId} AND vi.rule_id = ${ruleId}
    ORDER BY r.project_id, r.reporting_period_id, r.indicator_id`);
  const pairs = rowsOf<{ projectId: string; reportingPeriodId: string; indicatorId: string }>(result);
  for (let at = 0; at < pairs.length; at += PAIRS_AT_ONCE) {
    await recheckRuleFlags(tx, orgId, pairs.slice(at, at + PAIRS_AT_ONCE));
  }
}
