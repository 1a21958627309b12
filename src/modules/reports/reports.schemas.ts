import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/schemas/pagination.js';
import { Body, DateOnly, MULTILINE, Nullable, Text, Timestamp, Uuid } from '../../http/schemas/schemas.js';
import {
  ActivityEntry,
  AttachmentEntry,
  BudgetSummary,
  Cover,
  IndicatorEntry,
  Narratives,
  ReportContent,
  ReportProject,
} from './report-snapshot.js';
import { REPORT_STATUSES, REPORT_TYPES } from './reports.tables.js';

const NARRATIVE_MAX_LENGTH = 50_000;
const MAX_PERIODS = 200;

const ReportAttachment = Type.Object(
  {
    ...AttachmentEntry.properties,
    createdAt: Timestamp(),
    downloadUrl: Type.String({
      description:
        'Relative path: the authenticated download, or on a shared report the public one of that link',
    }),
  },
  { title: 'ReportAttachment' },
);

const Narrative = Type.String({ maxLength: NARRATIVE_MAX_LENGTH, ...MULTILINE });

const Sections = Type.Object(
  {
    ...Narratives.properties,
    indicators: Type.Array(IndicatorEntry),
    activities: Type.Array(ActivityEntry),
    budget: BudgetSummary,
  },
  { title: 'ReportSections' },
);

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
    periodIds: ReportContent.properties.periodIds,
    project: ReportProject,
    cover: Cover,
    sections: Sections,
    attachments: Type.Array(ReportAttachment),
  },
  {
    title: 'Report',
    description: 'An assembled donor report: data sections are a snapshot taken at creation or refresh',
  },
);

export const ReportListItem = Type.Object(
  { ...identity, projectName: Type.String() },
  { title: 'ReportSummary', description: 'A report without its sections' },
);

export const ReportQuery = Type.Object({
  ...PageQuery,
  projectId: Type.Optional(Uuid('Only reports of this project')),
  status: Type.Optional(Type.String({ enum: [...REPORT_STATUSES] })),
});

const title = Text(200);
const reportTypeField = Type.String({ enum: [...REPORT_TYPES] });

export const CreateReportBody = Body(
  {
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
  },
  { title: 'ReportCreate' },
);

export const CreateProjectReportBody = Body(
  {
    title,
    startDate: DateOnly(),
    endDate: DateOnly(),
    reportType: Type.Optional({ ...reportTypeField, default: 'ad_hoc' }),
  },
  { title: 'ProjectReportCreate' },
);

export const UpdateReportBody = Body(
  {
    title: Type.Optional(title),
    sections: Type.Optional(
      Body({
        executiveSummary: Type.Optional(Narrative),
        challengesLessons: Type.Optional(Narrative),
        recommendations: Type.Optional(Narrative),
      }),
    ),
    status: Type.Optional(Type.String({ enum: [...REPORT_STATUSES] })),
  },
  { title: 'ReportUpdate' },
);

export const ShareBody = Body(
  {
    expiresAt: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'date-time',
        description: 'A future time, or null for a link that does not expire',
      }),
    ),
  },
  { title: 'ShareLinkRequest' },
);

export const ShareLink = Type.Object(
  {
    shareToken: Uuid(),
    shareUrl: Type.String(),
    shareExpiresAt: Nullable(Timestamp()),
  },
  { title: 'ShareLink' },
);

export type CreateReportInput = Static<typeof CreateReportBody>;
export type CreateProjectReportInput = Static<typeof CreateProjectReportBody>;
export type UpdateReportInput = Static<typeof UpdateReportBody>;
export type ReportQueryInput = Static<typeof ReportQuery>;
export type ShareInput = Static<typeof ShareBody>;
