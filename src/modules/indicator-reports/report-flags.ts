import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { indicatorReports } from './indicator-reports.tables.js';

/** Takes a rule's flags off every report of the organization (the rule changed, or is gone). */
export async function dropRuleFlags(tx: Db, orgId: string, ruleId: string): Promise<void> {
  await tx
    .update(indicatorReports)
    .set({
      flags: sql`(SELECT coalesce(jsonb_agg(f), '[]'::jsonb) FROM jsonb_array_elements(${indicatorReports.flags}) f
        WHERE f->>'rule' IS DISTINCT FROM ${ruleId})`,
    })
    .where(
      and(
        eq(indicatorReports.orgId, orgId),
        sql`${indicatorReports.flags} @> jsonb_build_array(jsonb_build_object('rule', ${ruleId}::text))`,
      ),
    );
}
