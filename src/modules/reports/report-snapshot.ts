import { Type, type Static } from '@sinclair/typebox';
import { DateOnly, Nullable, NullableNumber, NullableString, Uuid } from '../../http/schemas/schemas.js';
import {
  AGGREGATION_METHODS,
  PROGRESS_STATUSES,
  type AggregationMethod,
  type ProgressStatus,
} from '../../lib/scoring.js';
import { ProgressStatusSchema } from '../indicators/index.js';
import { RULE_IMPORTANCES, type RuleImportance } from '../quality/index.js';

/**
 * The stored snapshot of a donor report, written once: the TypeBox schemas describe the API's answer
 * (reports.schemas.ts builds the response from them) and the types assembly.ts fills are derived
 * from them, so the two cannot drift apart.
 */

export const Narratives = Type.Object({
  executiveSummary: Type.String(),
  challengesLessons: Type.String(),
  recommendations: Type.String(),
});
export type Narratives = Static<typeof Narratives>;

const ResultNodeRef = Nullable(Type.Object({ id: Uuid(), level: Type.String(), title: Type.String() }));

/** The history kinds that change what a report says (the others change only its status). */
export const CHANGE_KINDS = ['created', 'edited', 'prefilled', 'counted', 'recounted', 'imported'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

const ProvenanceObject = Type.Object({
  counted: Type.Number({ description: 'The part counted from form submissions (their amounts)' }),
  manual: NullableNumber({
    description: 'The part entered by hand: value − counted − prefill; null when no report has a value',
  }),
  prefill: NullableNumber({
    description: 'What pre-fills from activity attendance wrote; null when none of them was pre-filled',
  }),
  submissions: Type.Integer({ description: 'How many form submissions were counted into them' }),
  lastChangedAt: NullableString({
    format: 'date-time',
    description: 'The last change of a value, target, disaggregated values or narrative among them',
  }),
  lastChangedBy: NullableString({
    description:
      'Who made that change ("First Last"); null when a counted form submission made it (lastChangedKind counted) or the user is gone',
  }),
  lastChangedKind: Type.Unsafe<ChangeKind | null>({
    type: ['string', 'null'],
    enum: [...CHANGE_KINDS, null],
    description:
      'How: created, edited, prefilled, counted (a form submission), recounted or imported (a bulk import of values)',
  }),
  approvedBy: NullableString({
    description: 'Who approved the latest of them, when all are approved; else null',
  }),
  approvedAt: NullableString({
    format: 'date-time',
    description: 'When that approval was made; null unless all are approved',
  }),
});
export type Provenance = Static<typeof ProvenanceObject>;

/**
 * Where a figure comes from (issue 24): the parts of the included indicator reports' values, summed,
 * their last change and their approval; for a summed indicator, counted + manual + prefill = value. Or
 * null. Nullable by JSON type lists rather than unions: a report serializes one for every indicator,
 * and a union is serialized by trying each branch. Per entry, not per period: per period it tripled the
 * size of a large report (200 indicators x 24 periods) and added 100 ms to its assembly.
 */
const NullableProvenance = Type.Unsafe<Provenance | null>({
  type: ['object', 'null'],
  title: 'IndicatorProvenance',
  description:
    "Over the entry's included values (the submitted and approved values of the included periods); null for a formula indicator (see inputs)",
  properties: ProvenanceObject.properties,
  required: ProvenanceObject.required,
});

export const FormulaInput = Type.Object(
  {
    code: Type.String(),
    value: NullableNumber({ description: 'The aggregated value the formula used; null when missing' }),
  },
  { title: 'FormulaInput' },
);
export type FormulaInput = Static<typeof FormulaInput>;

export const CrossTabulation = Type.Object(
  {
    name: Type.String({ description: 'The cross (a disaggregation with `crosses`)' }),
    crosses: Type.Array(Type.String(), {
      description: 'The crossed disaggregations, in the order of the cell keys',
    }),
    dimensions: Type.Array(
      Type.Object({
        name: Type.String(),
        categories: Type.Array(
          Type.Object({
            category: Type.String(),
            value: Nullable(Type.Number({ description: 'The margin: the cells holding the category' })),
          }),
        ),
      }),
      { description: 'Per crossed disaggregation, its margins derived from the cells' },
    ),
    cells: Type.Array(
      Type.Object({
        key: Type.String({ description: 'The key in disaggregatedValues: `female|15-24`' }),
        categories: Type.Array(Type.String()),
        value: Nullable(Type.Number({ description: 'null when no included period gives the cell' })),
      }),
      { description: 'Every cell, the first crossed disaggregation varying slowest' },
    ),
    total: Nullable(Type.Number({ description: 'The sum of the cells' })),
  },
  {
    title: 'CrossTabulation',
    description:
      'A cross of an indicator over the included periods: cells aggregated like the keys of ' +
      'disaggregatedValues, margins and total derived from each period’s cells and aggregated alike; ' +
      'periods that leave the cross empty add nothing.',
  },
);
export type CrossTabulation = Static<typeof CrossTabulation>;

/**
 * A data-quality flag of an included value, as the report keeps it (quality-notes.ts): its message and its
 * justification, never the rule's instruction or id. The message is null where it would quote a value the
 * report does not show.
 */
export const QualityNote = Type.Object(
  {
    periodId: Uuid('The period of the flagged value'),
    period: Type.String({ description: "The period's label" }),
    kind: Type.Unsafe<'rule' | 'outlier'>({
      type: 'string',
      enum: ['rule', 'outlier'],
      description: 'rule: the value breaks a validation rule; outlier: it stands out from its history',
    }),
    importance: Type.Unsafe<RuleImportance>({
      type: 'string',
      enum: [...RULE_IMPORTANCES],
      description: "The check's importance in words (outliers are medium)",
    }),
    message: NullableString({
      description:
        'What the check found, with its numbers ("12,000 is 10x the median of the last 8 periods (1,180); ' +
        'modified z = 41"); null when it would quote a value the report does not show (a value of another ' +
        "indicator not included, one whose personal amounts are gone, or other projects' values)",
    }),
    justification: NullableString({
      description: 'Why the organization keeps the value as it is, as given when it was submitted',
    }),
  },
  { title: 'QualityNote' },
);
export type QualityNote = Static<typeof QualityNote>;

export const IndicatorEntry = Type.Object({
  indicatorId: Uuid(),
  indicatorName: Type.String(),
  code: Type.String(),
  unit: Type.String(),
  aggregationMethod: Nullable(
    Type.Unsafe<AggregationMethod>({ enum: [...AGGREGATION_METHODS], type: 'string' }),
  ),
  value: Nullable(Type.Number({ description: 'Aggregated over the included periods by aggregationMethod' })),
  target: Nullable(
    Type.Number({
      description:
        "Cumulative target: for `sum`, the sum of the included periods' report targets; for the other " +
        "methods, the latest included period's; without period targets, the project link's target",
    }),
  ),
  baseline: Nullable(Type.Number()),
  progressPct: Nullable(Type.Number()),
  status: ProgressStatusSchema,
  // Optional as stored: reports assembled before them lack them, and are served with null (report-view.ts).
  targetToDate: Type.Optional(
    NullableNumber({
      description:
        "The included periods' own targets (their indicator reports' targets, whatever the report's status) " +
        'combined by aggregationMethod: sum adds them, average averages them, latest takes the latest ' +
        "period's, min and max the least and greatest. Null unless every included period has a target, " +
        'for formula indicators, and in reports assembled before it existed. Unlike `target`, never the ' +
        "project link's target.",
    }),
  ),
  progressToDatePct: Type.Optional(
    NullableNumber({
      description: 'value / targetToDate × 100, one decimal; null when either is missing or 0',
    }),
  ),
  statusToDate: Type.Optional(
    Type.Unsafe<ProgressStatus | null>({
      type: ['string', 'null'],
      enum: [...PROGRESS_STATUSES, null],
      description:
        '`status` against targetToDate: on_track >= 90, at_risk 70 to < 90, off_track < 70, no_target ' +
        'when targetToDate is null or 0, no_data without a value; null in reports assembled before it existed',
    }),
  ),
  narrative: Type.String({
    description: "The included values' narratives in period order, blank lines between",
  }),
  disaggregatedValues: Type.Record(Type.String(), Type.Number(), {
    description: 'Each category aggregated over the periods by aggregationMethod; {} for formula indicators',
  }),
  resultNode: ResultNodeRef,
  // Only for an indicator with disaggregations of its own; absent from reports assembled before it.
  disaggregations: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ description: 'The disaggregation (Sex)' }),
        categories: Type.Array(Type.String(), {
          description: 'Its categories in their order, each a key of disaggregatedValues when reported',
        }),
      }),
      {
        description:
          "The indicator's plain disaggregations when the report was assembled, naming the keys of " +
          'disaggregatedValues (crosses are in crossTabulations); absent for an indicator without any, ' +
          'for formula indicators, and in reports assembled before it existed',
      },
    ),
  ),
  // Only for an indicator with crosses: every other entry reads as before.
  crossTabulations: Type.Optional(
    Type.Array(CrossTabulation, { description: 'One table per cross of the indicator (sex by age)' }),
  ),
  // Optional: reports assembled before issue 24 were stored without them, and are served as they are.
  provenance: Type.Optional(NullableProvenance),
  inputs: Type.Optional(
    Type.Unsafe<FormulaInput[] | null>({
      type: ['array', 'null'],
      items: FormulaInput,
      description: "A formula indicator's inputs, each code it uses once; null for other indicators",
    }),
  ),
  // Only for an entry with flagged values, so that the others read as before; absent from older reports.
  qualityNotes: Type.Optional(
    Type.Array(QualityNote, {
      description:
        "Data-quality notes on the entry's included values (submitted and approved), oldest period first: " +
        'the broken validation rules and outliers of each, with their justifications. Kept in the snapshot ' +
        'with the figures they speak of; absent when none. On a shared report (GET /reports/share/:token ' +
        'and its page) only while the organization has showQualityNotes on, read each time the link is read.',
    }),
  ),
  periods: Type.Array(
    Type.Object({
      periodId: Uuid(),
      label: Type.String(),
      value: Nullable(Type.Number()),
      target: Nullable(Type.Number()),
    }),
  ),
});
export type IndicatorEntry = Static<typeof IndicatorEntry>;

export const ActivityEntry = Type.Object({
  id: Uuid(),
  title: Type.String(),
  status: Type.String(),
  startDate: DateOnly(),
  endDate: DateOnly(),
  location: Nullable(Type.String()),
  outputId: Nullable(Uuid()),
  participantCount: Type.Integer(),
  attendedCount: Type.Integer(),
});
export type ActivityEntry = Static<typeof ActivityEntry>;

export const BudgetLineEntry = Type.Object({
  id: Uuid(),
  category: Type.String(),
  description: Nullable(Type.String()),
  plannedAmount: Type.Number(),
  actualAmount: Type.Number(),
});
export type BudgetLineEntry = Static<typeof BudgetLineEntry>;

export const BudgetSummary = Type.Object({
  currency: Type.String(),
  totalPlanned: Type.Number(),
  totalActual: Type.Number(),
  burnRate: Nullable(
    Type.Number({
      description: 'totalActual / totalPlanned × 100, one decimal; null when nothing is planned',
    }),
  ),
  lines: Type.Array(BudgetLineEntry),
});
export type BudgetSummary = Static<typeof BudgetSummary>;

/** As stored: the ISO timestamp of the upload (the API adds each attachment's download URL). */
export const AttachmentEntry = Type.Object({
  id: Uuid(),
  title: Type.String(),
  fileName: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
});
export type AttachmentEntry = Static<typeof AttachmentEntry>;

export const ReportProject = Type.Object({
  id: Uuid(),
  name: Type.String(),
  code: Type.String(),
  programId: Uuid(),
  programName: Type.String(),
  status: Type.String(),
  startDate: DateOnly(),
  endDate: DateOnly(),
  currency: Type.String(),
  budget: Type.Number(),
  location: Nullable(Type.String()),
  lead: Nullable(Type.String()),
  description: Nullable(Type.String()),
});
export type ReportProject = Static<typeof ReportProject>;

export const Cover = Type.Object({
  projectName: Type.String(),
  donors: Type.Array(Type.Object({ id: Uuid(), name: Type.String(), code: Type.String() })),
  organization: Type.Object({ name: Type.String(), logoUrl: Nullable(Type.String()) }),
  period: Type.Object({ startDate: DateOnly(), endDate: DateOnly() }),
});
export type Cover = Static<typeof Cover>;

/** The stored snapshot: everything of a report but its identity, narratives and sharing. */
export const ReportContent = Type.Object({
  periodIds: Type.Array(Uuid(), { description: 'The periods whose values were included, oldest first' }),
  project: ReportProject,
  cover: Cover,
  indicators: Type.Array(IndicatorEntry),
  activities: Type.Array(ActivityEntry),
  budget: BudgetSummary,
  attachments: Type.Array(AttachmentEntry),
});
export type ReportContent = Static<typeof ReportContent>;
