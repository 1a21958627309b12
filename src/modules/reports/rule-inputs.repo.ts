/**
 * The inputs of the rules whose flags a report's values carry (a read model, like assembly.repo.ts): what a
 * rule's message quotes, so that quality-notes.ts keeps it only when the report shows each of them.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { validationRuleInputs } from '../quality/quality.tables.js';

/** Each rule's input indicators, by rule id; one statement on the inputs' primary key, none without rules. */
export async function ruleInputsOf(
  db: Db,
  orgId: string,
  ruleIds: readonly string[],
): Promise<Map<string, string[]>> {
  const inputs = new Map<string, string[]>();
  if (ruleIds.length === 0) return inputs;
  const rows = await db
    .select({ ruleId: validationRuleInputs.ruleId, indicatorId: validationRuleInputs.indicatorId })
    .from(validationRuleInputs)
    .where(
      and(eq(validationRuleInputs.orgId, orgId), inArray(validationRuleInputs.ruleId, [...new Set(ruleIds)])),
    );
  for (const row of rows) inputs.set(row.ruleId, [...(inputs.get(row.ruleId) ?? []), row.indicatorId]);
  return inputs;
}
