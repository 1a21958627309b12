import { and, asc, count, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { inWindow, type Window } from '../../db/window.js';
import { projects } from '../projects/projects.tables.js';
import { validationRuleInputs, validationRules } from './quality.tables.js';

export type RuleRow = typeof validationRules.$inferSelect;
export type RuleValues = Omit<
  typeof validationRules.$inferInsert,
  'id' | 'orgId' | 'createdAt' | 'updatedAt'
>;
export interface RuleInput {
  indicatorId: string;
  code: string;
}

const byName = [sql`lower(${validationRules.name}) collate "C"`, asc(validationRules.id)];

export async function countRules(db: Db, orgId: string): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(validationRules)
    .where(eq(validationRules.orgId, orgId));
  return row?.total ?? 0;
}

export function listRules(db: Db, orgId: string, window: Window): Promise<RuleRow[]> {
  return inWindow(
    db
      .select()
      .from(validationRules)
      .where(eq(validationRules.orgId, orgId))
      .orderBy(...byName)
      .$dynamic(),
    window,
  );
}

export async function findRule(db: Db, orgId: string, id: string): Promise<RuleRow | undefined> {
  const [row] = await db
    .select()
    .from(validationRules)
    .where(and(eq(validationRules.orgId, orgId), eq(validationRules.id, id)))
    .limit(1);
  return row;
}

export async function insertRule(db: Db, orgId: string, values: RuleValues): Promise<RuleRow> {
  const [row] = await db
    .insert(validationRules)
    .values({ ...values, orgId })
    .returning();
  return row!;
}

export async function updateRule(
  db: Db,
  orgId: string,
  id: string,
  values: Partial<RuleValues>,
): Promise<RuleRow | undefined> {
  const [row] = await db
    .update(validationRules)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(validationRules.orgId, orgId), eq(validationRules.id, id)))
    .returning();
  return row;
}

export async function deleteRule(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(validationRules)
    .where(and(eq(validationRules.orgId, orgId), eq(validationRules.id, id)))
    .returning({ id: validationRules.id });
  return rows.length > 0;
}

/** The rule's inputs are these indicators from now on. */
export async function replaceInputs(db: Db, orgId: string, ruleId: string, inputs: RuleInput[]) {
  await db
    .delete(validationRuleInputs)
    .where(and(eq(validationRuleInputs.orgId, orgId), eq(validationRuleInputs.ruleId, ruleId)));
  if (inputs.length === 0) return;
  await db.insert(validationRuleInputs).values(inputs.map((input) => ({ ...input, orgId, ruleId })));
}

/** Which of these ids are projects of the organization. */
export async function projectsAmong(db: Db, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.orgId, orgId), inArray(projects.id, ids)));
  return new Set(rows.map((row) => row.id));
}

/** A rule with its inputs, as the write hook checks it. */
export interface RuleWithInputs extends RuleRow {
  inputs: RuleInput[];
}

/**
 * The rules that read any of these indicators, with all their inputs: what a write of their values
 * checks again. One statement whatever the number of rules (the inputs' index by indicator): it runs in
 * every write of a value, where each round trip holds a connection.
 */
export async function rulesReading(db: Db, orgId: string, indicatorIds: string[]): Promise<RuleWithInputs[]> {
  if (indicatorIds.length === 0) return [];
  const reading = db
    .selectDistinct({ id: validationRuleInputs.ruleId })
    .from(validationRuleInputs)
    .where(
      and(eq(validationRuleInputs.orgId, orgId), inArray(validationRuleInputs.indicatorId, indicatorIds)),
    );
  return db
    .select({
      ...getTableColumns(validationRules),
      inputs: sql<RuleInput[]>`(SELECT coalesce(json_agg(json_build_object('indicatorId', i.indicator_id,
        'code', i.code) ORDER BY i.code, i.indicator_id), '[]'::json)
        FROM ${validationRuleInputs} i WHERE i.org_id = ${validationRules.orgId} AND i.rule_id = ${validationRules.id})`,
    })
    .from(validationRules)
    .where(and(eq(validationRules.orgId, orgId), inArray(validationRules.id, reading)))
    .orderBy(...byName);
}
