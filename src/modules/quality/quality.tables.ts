import { sql } from 'drizzle-orm';
import { check, foreignKey, index, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, rowId, updatedAt } from '../../db/columns.js';
import type { RuleOperator } from '../../lib/rule-expressions.js';
import { indicators } from '../indicators/indicators.tables.js';
import { organizations } from '../orgs/orgs.tables.js';

export const RULE_IMPORTANCES = ['high', 'medium', 'low'] as const;
export type RuleImportance = (typeof RULE_IMPORTANCES)[number];

/**
 * A validation rule of an organization: `left operator right` over the indicators' values and cells of
 * one project and period (lib/rule-expressions.ts), checked as values are written.
 */
export const validationRules = pgTable(
  'validation_rules',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    left: text('left_expression').notNull(),
    operator: text('operator').$type<RuleOperator>().notNull(),
    right: text('right_expression').notNull(),
    importance: text('importance').$type<RuleImportance>().notNull(),
    instruction: text('instruction'),
    /** The projects it applies to; null: every project of the organization. */
    projectIds: uuid('project_ids').array(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'validation_rules_pkey', columns: [t.orgId, t.id] }),
    index('validation_rules_org_id_name_idx').on(t.orgId, t.name),
    check('validation_rules_operator_check', sql`${t.operator} IN ('==', '!=', '<', '<=', '>', '>=')`),
    check('validation_rules_importance_check', sql`${t.importance} IN ('high', 'medium', 'low')`),
  ],
);

/**
 * The indicators a rule reads, by the code its expressions name them with: a write of one of them
 * finds the rules to check again, and a rule reads its values by id (a code renamed later still reads).
 * An indicator deleted takes its rows: the rule then lacks that input and is not checked.
 */
export const validationRuleInputs = pgTable(
  'validation_rule_inputs',
  {
    orgId: uuid('org_id').notNull(),
    ruleId: uuid('rule_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    /** The code as the rule writes it. */
    code: text('code').notNull(),
  },
  (t) => [
    primaryKey({ name: 'validation_rule_inputs_pkey', columns: [t.orgId, t.ruleId, t.indicatorId] }),
    foreignKey({
      name: 'validation_rule_inputs_rule_fk',
      columns: [t.orgId, t.ruleId],
      foreignColumns: [validationRules.orgId, validationRules.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'validation_rule_inputs_indicator_fk',
      columns: [t.orgId, t.indicatorId],
      foreignColumns: [indicators.orgId, indicators.id],
    }).onDelete('cascade'),
    index('validation_rule_inputs_indicator_idx').on(t.orgId, t.indicatorId),
  ],
);

/**
 * What a report's `flags` hold: a rule it breaks in its project and period, or its value far from the
 * indicator's history, with the numbers, and the justification given on submitting it.
 */
export interface ReportFlag {
  kind: 'rule' | 'outlier';
  /** The rule's id (kind `rule`). */
  rule?: string;
  /** The outlier method (kind `outlier`). */
  method?: string;
  message: string;
  importance: RuleImportance;
  /** The rule's instruction to whoever fixes the value, when it has one. */
  instruction?: string | null;
  justification: string | null;
}
