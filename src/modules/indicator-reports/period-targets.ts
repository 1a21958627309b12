import { badRequest, invalidTransition, notFound, periodLocked } from '../../errors/catalogue.js';
import type { PeriodTargetResult, PeriodTargets } from '../indicators/index.js';
import { lockPeriodForShare } from '../periods/index.js';
import {
  insertIndicatorReport,
  lockIndicatorReportFor,
  updateIndicatorReport,
  type IndicatorReportRow,
} from './indicator-reports.repo.js';
import { recordHistory } from './report-history.js';
import { EDITABLE } from './report-workflow.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Sets several periods' targets of one indicator in a project (`PATCH .../indicators/:indicatorId
 * { periodTargets }`): each period's indicator report takes the target, a draft report is created where
 * none exists (null creates nothing), draft and rejected reports keep their status. Refusals, before
 * anything is written, in this order: a key that is not a UUID (400), a period unknown in the
 * organization (404), another project's period (400, every one named), then, for the periods whose
 * target would change, a locked period (403) and a submitted or approved report (409), each naming the
 * period. A target that stays as it is changes nothing and is never refused. Periods are locked FOR SHARE
 * and reports FOR UPDATE in id order, so two requests never wait on each other in a circle.
 */
export const setPeriodTargets: PeriodTargets = async (tx, member, link, sent) => {
  const keys = Object.keys(sent).sort();
  const malformed = keys.filter((id) => !UUID.test(id));
  if (malformed.length > 0) {
    throw badRequest(
      ...malformed.map((id) => ({
        path: `/periodTargets/${id.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        rule: 'format',
        message: `periodTargets.${id} must be a reporting period id (a UUID)`,
      })),
    );
  }
  // Ids as the database writes them (lower case): an id sent in capitals names the same period.
  const targets: Record<string, number | null> = {};
  const twice: string[] = [];
  for (const key of keys) {
    const id = key.toLowerCase();
    if (Object.hasOwn(targets, id)) twice.push(id);
    targets[id] = sent[key] ?? null;
  }
  if (twice.length > 0) {
    throw badRequest(...twice.map((id) => `periodTargets names ${id} twice (in different cases)`));
  }
  const ids = Object.keys(targets).sort();
  const periods = [];
  for (const id of ids) {
    const period = await lockPeriodForShare(tx, member.orgId, id);
    if (!period) throw notFound('Reporting period');
    periods.push(period);
  }
  const foreign = periods.filter((period) => period.projectId !== link.projectId);
  if (foreign.length > 0) {
    throw badRequest(
      ...foreign.map((period) => ({
        path: `/periodTargets/${period.id}`,
        rule: 'reportingPeriod',
        message: `periodTargets.${period.id} must be a reporting period of this project`,
      })),
    );
  }

  const planned: { period: (typeof periods)[number]; report: IndicatorReportRow | undefined }[] = [];
  const current = new Map<string, IndicatorReportRow | undefined>();
  for (const period of periods) {
    const report = await lockIndicatorReportFor(tx, member.orgId, { ...link, reportingPeriodId: period.id });
    current.set(period.id, report);
    const target = targets[period.id] ?? null;
    if ((report?.target ?? null) === target) continue;
    const named = `${period.label} (${period.id})`;
    if (period.isLocked) throw periodLocked(403, named);
    if (report && !EDITABLE.includes(report.status)) {
      throw invalidTransition(
        `The indicator report of ${named} is ${report.status}: its target can only change while ` +
          `${EDITABLE.join(' or ')}`,
      );
    }
    planned.push({ period, report });
  }

  const written = new Map<string, { report: IndicatorReportRow; created: boolean }>();
  for (const { period, report } of planned) {
    const target = targets[period.id] ?? null;
    if (report) {
      const after = (await updateIndicatorReport(tx, member.orgId, report.id, EDITABLE, { target }))!;
      await recordHistory(tx, { kind: 'edited', actor: member, before: report, after });
      written.set(period.id, { report: after, created: false });
    } else {
      const after = await insertIndicatorReport(tx, member.orgId, {
        ...link,
        reportingPeriodId: period.id,
        target,
        narrative: null,
      });
      await recordHistory(tx, { kind: 'created', actor: member, before: null, after });
      written.set(period.id, { report: after, created: true });
    }
  }

  const results: PeriodTargetResult[] = [];
  for (const period of [...periods].sort((a, b) => (a.startDate < b.startDate ? -1 : 1))) {
    const change = written.get(period.id);
    const report = change?.report ?? current.get(period.id);
    results.push({
      reportingPeriodId: period.id,
      label: period.label,
      target: report?.target ?? null,
      indicatorReportId: report?.id ?? null,
      status: report?.status ?? null,
      created: change?.created ?? false,
    });
  }
  return results;
};
