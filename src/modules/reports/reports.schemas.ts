import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.js';
import { Body, DateOnly, Nullable, Text, Timestamp, Uuid } from '../../http/schemas.js';
import { AGGREGATION_METHODS } from '../../lib/scoring.js';
import { ProgressStatusSchema } from '../indicators/indicators.schemas.js';
import { REPORT_STATUSES, REPORT_TYPES } from './reports.tables.js';

const NARRATIVE_MAX_LENGTH = 50_000;
const MAX_PERIODS = 200;

const ResultNodeRef = Nullable(Type.Object({ id: Uuid(), level: Type.String(), title: Type.String() }));

const IndicatorEntry = Type.Object({
  indicatorId: Uuid(),
  indicatorName: Type.String(),
  code: Type.String(),
  unit: Type.String(),
  aggregationMethod: Nullable(Type.String({ enum: [...AGGREGATION_METHODS] })),
  value: Nullable(Type.Number({ description: 'Aggregated over the included periods by aggregationMethod' })),
  target: Nullable(Type.Number({ description: 'Cumulative target (DECISIONS.md section 8)' })),
  baseline: Nullable(Type.Number()),
  progressPct: Nullable(Type.Number()),
  status: ProgressStatusSchema,
  narrative: Type.String({
    description: "The included values' narratives in period order, blank lines between",
  }),
  disaggregatedValues: Type.Record(Type.String(), Type.Number(), {
    description: 'Each category aggregated over the periods by aggregationMethod; {} for formula indicators',
  }),
  resultNode: ResultNodeRef,
  periods: Type.Array(
    Type.Object({
      periodId: Uuid(),
      label: Type.String(),
      value: Nullable(Type.Number()),
      target: Nullable(Type.Number()),
    }),
  ),
});

const ActivityEntry = Type.Object({
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

const Budget = Type.Object({
  currency: Type.String(),
  totalPlanned: Type.Number(),
  totalActual: Type.Number(),
  burnRate: Nullable(
    Type.Number({
      description: 'totalActual / totalPlanned × 100, one decimal; null when nothing is planned',
    }),
  ),
  lines: Type.Array(
    Type.Object({
      id: Uuid(),
      category: Type.String(),
      description: Nullable(Type.String()),
      plannedAmount: Type.Number(),
      actualAmount: Type.Number(),
    }),
  ),
});

const ReportAttachment = Type.Object({
  id: Uuid(),
  title: Type.String(),
  fileName: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  createdAt: Timestamp(),
  downloadUrl: Type.String({
    description:
      'Relative path: the authenticated download, or on a shared report the public one of that link',
  }),
});

const Narrative = Type.String({ maxLength: NARRATIVE_MAX_LENGTH });

const Sections = Type.Object({
  executiveSummary: Type.String(),
  challengesLessons: Type.String(),
  recommendations: Type.String(),
  indicators: Type.Array(IndicatorEntry),
  activities: Type.Array(ActivityEntry),
  budget: Budget,
});

const ReportProject = Type.Object({
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

const Cover = Type.Object({
  projectName: Type.String(),
  donors: Type.Array(Type.Object({ id: Uuid(), name: Type.String(), code: Type.String() })),
  organization: Type.Object({ name: Type.String(), logoUrl: Nullable(Type.String()) }),
  period: Type.Object({ startDate: DateOnly(), endDate: DateOnly() }),
});

const identity = {
  id: Uuid(),
  orgId: Uuid(),
  title: Type.String(),
  projectId: Uuid(),
  reportType: Type.String({ enum: [...REPORT_TYPES] }),
  startDate: DateOnly(),
  endDate: DateOnly(),
  status: Type.String({ enum: [...REPORT_STATUSES] }),
  shareToken: Nullable(Uuid()),
  shareUrl: Nullable(Type.String({ description: '{APP_URL}/r/<shareToken>' })),
  shareExpiresAt: Nullable(Timestamp()),
  publishedAt: Nullable(Timestamp()),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const Report = Type.Object(
  {
    ...identity,
    periodIds: Type.Array(Uuid(), { description: 'The periods whose values were included, oldest first' }),
    project: ReportProject,
    cover: Cover,
    sections: Sections,
    attachments: Type.Array(ReportAttachment),
  },
  { description: 'An assembled donor report: data sections are a snapshot taken at creation or refresh' },
);

export const ReportListItem = Type.Object(
  { ...identity, projectName: Type.String() },
  { description: 'A report without its sections' },
);

export const ReportQuery = Type.Object({
  ...PageQuery,
  projectId: Type.Optional(Uuid('Only reports of this project')),
  status: Type.Optional(Type.String({ enum: [...REPORT_STATUSES] })),
});

const title = Text(200);
const reportTypeField = Type.String({ enum: [...REPORT_TYPES] });

export const CreateReportBody = Body({
  title,
  projectId: Uuid(),
  reportType: reportTypeField,
  periodIds: Type.Optional(
    Type.Array(Uuid(), {
      minItems: 1,
      maxItems: MAX_PERIODS,
      uniqueItems: true,
      description: 'Periods of the project',
    }),
  ),
  startDate: Type.Optional(DateOnly()),
  endDate: Type.Optional(DateOnly()),
});

export const CreateProjectReportBody = Body({
  title,
  startDate: DateOnly(),
  endDate: DateOnly(),
  reportType: Type.Optional({ ...reportTypeField, default: 'ad_hoc' }),
});

export const UpdateReportBody = Body({
  title: Type.Optional(title),
  sections: Type.Optional(
    Body({
      executiveSummary: Type.Optional(Narrative),
      challengesLessons: Type.Optional(Narrative),
      recommendations: Type.Optional(Narrative),
    }),
  ),
  status: Type.Optional(Type.String({ enum: [...REPORT_STATUSES] })),
});

export const ShareBody = Body({
  expiresAt: Type.Optional(
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'A future time, or null for a link that does not expire',
    }),
  ),
});

export const ShareLink = Type.Object({
  shareToken: Uuid(),
  shareUrl: Type.String(),
  shareExpiresAt: Nullable(Timestamp()),
});

export type CreateReportInput = Static<typeof CreateReportBody>;
export type CreateProjectReportInput = Static<typeof CreateProjectReportBody>;
export type UpdateReportInput = Static<typeof UpdateReportBody>;
export type ReportQueryInput = Static<typeof ReportQuery>;
export type ShareInput = Static<typeof ShareBody>;
