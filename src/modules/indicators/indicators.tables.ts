import { sql } from 'drizzle-orm';
import {
  boolean,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, finite, rowId, updatedAt } from '../../db/columns.js';
import type { QualityChecks } from '../../lib/outliers.js';
import { AGGREGATION_METHODS } from '../../lib/scoring.js';
import { organizations } from '../orgs/orgs.tables.js';
import { projects } from '../projects/projects.tables.js';
import { resultNodes } from '../results/results.tables.js';

export const aggregationMethod = pgEnum('aggregation_method', AGGREGATION_METHODS);

/** Indicator definitions of an organization; projects link them with their own targets. */
export const indicators = pgTable(
  'indicators',
  {
    id: rowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    code: text('code').notNull(),
    unit: text('unit').notNull(),
    /** Null only for formula indicators, which take their inputs' aggregates. */
    aggregationMethod: aggregationMethod('aggregation_method'),
    description: text('description'),
    dataSource: text('data_source'),
    // A deleted result node leaves its indicators in place, unattached (DECISIONS.md section 6).
    resultNodeId: uuid('result_node_id'),
    isFormula: boolean('is_formula').notNull().default(false),
    formula: text('formula'),
    /** How saved values are checked for outliers; null: the defaults (lib/outliers.ts DEFAULT_CHECKS). */
    qualityChecks: jsonb('quality_checks').$type<QualityChecks>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Codes are formula variables: unique per organization whatever their case.
    uniqueIndex('indicators_org_id_lower_code_key').on(t.orgId, sql`lower(${t.code})`),
    primaryKey({ name: 'indicators_pkey', columns: [t.orgId, t.id] }),
    // Migration 0021 narrows the action to SET NULL (result_node_id): org_id stays.
    foreignKey({
      name: 'indicators_result_node_id_result_nodes_id_fk',
      columns: [t.orgId, t.resultNodeId],
      foreignColumns: [resultNodes.orgId, resultNodes.id],
    }).onDelete('set null'),
    index('indicators_result_node_id_idx').on(t.resultNodeId),
  ],
);

/**
 * The indicators a formula uses, one row per input. The edges make "used in a formula" a foreign key:
 * an input cannot be deleted while a formula reads it, and cycles are found by walking them.
 */
export const formulaInputs = pgTable(
  'indicator_formula_inputs',
  {
    orgId: uuid('org_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    inputId: uuid('input_id').notNull(),
  },
  (t) => [
    primaryKey({ name: 'indicator_formula_inputs_pkey', columns: [t.orgId, t.indicatorId, t.inputId] }),
    foreignKey({
      name: 'indicator_formula_inputs_indicator_fk',
      columns: [t.orgId, t.indicatorId],
      foreignColumns: [indicators.orgId, indicators.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'indicator_formula_inputs_input_fk',
      columns: [t.orgId, t.inputId],
      foreignColumns: [indicators.orgId, indicators.id],
    }),
    index('indicator_formula_inputs_input_id_idx').on(t.inputId),
  ],
);

/**
 * A dimension of an indicator (sex, age group) and its categories. A cross (sex by age) names the
 * disaggregations it crosses in `crosses` and its categories are its cells (`female|15-24`); null for a
 * plain one.
 */
export const disaggregations = pgTable(
  'indicator_disaggregations',
  {
    id: rowId(),
    orgId: uuid('org_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    name: text('name').notNull(),
    categories: text('categories').array().notNull(),
    crosses: text('crosses').array(),
    createdAt: createdAt(),
  },
  (t) => [
    foreignKey({
      name: 'indicator_disaggregations_indicator_fk',
      columns: [t.orgId, t.indicatorId],
      foreignColumns: [indicators.orgId, indicators.id],
    }).onDelete('cascade'),
    primaryKey({ name: 'indicator_disaggregations_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('indicator_disaggregations_org_id_indicator_id_lower_name_key').on(
      t.orgId,
      t.indicatorId,
      sql`lower(${t.name})`,
    ),
  ],
);

/** An indicator tracked by a project, with the project's target and baseline. */
export const projectIndicators = pgTable(
  'project_indicators',
  {
    orgId: uuid('org_id').notNull(),
    projectId: uuid('project_id').notNull(),
    indicatorId: uuid('indicator_id').notNull(),
    target: doublePrecision('target'),
    baseline: doublePrecision('baseline'),
    baselineYear: integer('baseline_year'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'project_indicators_pkey', columns: [t.orgId, t.projectId, t.indicatorId] }),
    foreignKey({ columns: [t.orgId, t.projectId], foreignColumns: [projects.orgId, projects.id] }).onDelete(
      'cascade',
    ),
    foreignKey({
      columns: [t.orgId, t.indicatorId],
      foreignColumns: [indicators.orgId, indicators.id],
    }).onDelete('cascade'),
    index('project_indicators_indicator_id_idx').on(t.indicatorId),
    finite('project_indicators_target_finite', t.target),
    finite('project_indicators_baseline_finite', t.baseline),
  ],
);
