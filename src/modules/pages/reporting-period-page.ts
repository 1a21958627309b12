import { CONTRIBUTORS } from '../../http/pipeline/access.js';
import { EDITABLE_REPORT_STATUSES } from '../indicator-reports/index.js';
import { day, number, range } from './formats.js';
import { html } from './html.js';
import type { PageContent } from './layout.js';
import type { ReportingPeriodView } from './member-views.js';
import { indicatorReportPath, REPORT_STATUS } from './indicator-report-page.js';

type Row = ReportingPeriodView['indicators'][number];

/** Missing, draft and rejected reports are still to be done; submitted and approved ones are not. */
const outstanding = (row: Row) => row.report === null || EDITABLE_REPORT_STATUSES.includes(row.report.status);

/** Due in the future, today, or overdue, as of `today` (YYYY-MM-DD, UTC). */
function deadline(dueDate: string | null, today: string) {
  if (!dueDate) return null;
  if (dueDate < today) return html`<strong class="overdue">overdue since ${day(dueDate)}</strong>`;
  return html`due ${dueDate === today ? 'today' : day(dueDate)}`;
}

/**
 * The page the reminder digest links to while a report is missing: what is still to be done in the
 * reporting period, each indicator with its state and its report page, and (for those who report, while
 * the period is open) a button that starts a missing report.
 */
export function reportingPeriodPage(
  view: ReportingPeriodView,
  signedInAs: string,
  today: string,
): PageContent {
  const { project, period, member, indicators } = view;
  const canStart = CONTRIBUTORS.includes(member.role) && !period.isLocked;
  const row = (entry: Row) => {
    const state = entry.report ? REPORT_STATUS[entry.report.status] : 'Not started';
    const action = entry.report
      ? html`<a href="${indicatorReportPath(project.id, entry.report.id)}">Open the report</a>`
      : canStart
        ? html`<button type="button" class="secondary" disabled data-ready data-start="${entry.id}">Start the report</button>`
        : null;
    return html`<tr>
      <th scope="row">${entry.name} <span class="code">${entry.code}</span></th>
      <td>${state}</td>
      <td class="num">${entry.report?.value == null ? '—' : `${number(entry.report.value)} ${entry.unit}`}</td>
      <td>${action}</td>
    </tr>`;
  };
  const table = (rows: Row[], caption: string) =>
    html`<div class="scroll">
      <table>
        <caption>${caption}</caption>
        <thead>
          <tr><th scope="col">Indicator</th><th scope="col">State</th><th scope="col" class="num">Value</th><th scope="col"><span class="visually-hidden">Report</span></th></tr>
        </thead>
        <tbody>${rows.map(row)}</tbody>
      </table>
    </div>`;
  const todo = indicators.filter(outstanding);
  const done = indicators.filter((entry) => !outstanding(entry));
  return {
    title: `${project.name}: ${period.label}`,
    signedInAs,
    scripts: canStart && todo.some((entry) => entry.report === null) ? ['common.js', 'member.js'] : [],
    main: html`<p class="crumbs">${project.name}</p>
      <h1>Reporting period ${period.label}</h1>
      <p class="lead">
        ${range(period.startDate, period.endDate)}${period.dueDate ? html`, ${deadline(period.dueDate, today)}` : null}.
        ${period.isLocked ? 'The period is locked: its reports can no longer change.' : null}
      </p>
      <section data-period data-api="/orgs/${member.orgId}/projects/${project.id}/indicator-reports"
        data-period-id="${period.id}" data-project-id="${project.id}">
        <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
        <h2>Still to do (${todo.length})</h2>
        ${
          todo.length > 0
            ? table(todo, 'Indicator reports not started, in draft or returned for correction')
            : html`<p>Nothing: every indicator of this period has been submitted.</p>`
        }
        ${
          done.length > 0
            ? html`<h2>Submitted or approved (${done.length})</h2>
              ${table(done, 'Indicator reports submitted or approved')}`
            : null
        }
        ${
          indicators.length === 0
            ? html`<p>No indicator is linked to this project yet, so nothing is reported in its periods.</p>`
            : null
        }
      </section>`,
  };
}
