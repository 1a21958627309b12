import type { Config } from '../../config.js';
import type { IndicatorEntry } from './report-snapshot.js';
import type { ReportRow } from './reports.repo.js';
import { shareUrl } from './share-links.js';

/** Where a report's attachments are downloaded: by members, or through the share link it was read by. */
export type AttachmentLinks = { orgId: string } | { shareToken: string };

/** A snapshot stored before the to-date figures existed lacks them: null, as the schema says. */
const withToDate = (entry: IndicatorEntry) => ({
  ...entry,
  targetToDate: entry.targetToDate ?? null,
  progressToDatePct: entry.progressToDatePct ?? null,
  statusToDate: entry.statusToDate ?? null,
});

/** An entry without its data-quality notes: a shared report whose organization does not show them. */
const withoutNotes = ({ qualityNotes: _notes, ...entry }: IndicatorEntry): IndicatorEntry => entry;

/**
 * The full report of DECISIONS.md section 11 from its row: identity, sharing, snapshot and narratives.
 * `qualityNotes` false leaves out every entry's data-quality notes (a shared report, while its
 * organization's showQualityNotes is off): the key itself, not an empty list.
 */
export function reportView(
  row: ReportRow,
  config: Pick<Config, 'appUrl'>,
  links: AttachmentLinks,
  { qualityNotes }: { qualityNotes: boolean },
) {
  const { periodIds, project, cover, indicators, activities, budget, attachments } = row.content;
  const download = (id: string) =>
    'orgId' in links
      ? `/orgs/${links.orgId}/attachments/${id}/download`
      : `/reports/share/${links.shareToken}/attachments/${id}`;
  return {
    id: row.id,
    orgId: row.orgId,
    title: row.title,
    projectId: row.projectId,
    reportType: row.reportType,
    startDate: row.startDate,
    endDate: row.endDate,
    periodIds,
    status: row.status,
    shareToken: row.shareToken,
    shareUrl: shareUrl(config, row.shareToken),
    shareExpiresAt: row.shareExpiresAt,
    publishedAt: row.publishedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    project,
    cover,
    sections: {
      ...row.narratives,
      indicators: (qualityNotes ? indicators : indicators.map(withoutNotes)).map(withToDate),
      activities,
      budget,
    },
    attachments: attachments.map((file) => ({ ...file, downloadUrl: download(file.id) })),
  };
}
