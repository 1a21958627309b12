import { CONTRIBUTORS } from '../../http/pipeline/access.js';
import { EDITABLE_REPORT_STATUSES } from '../indicator-reports/index.js';
import type { ReportFlag } from '../quality/index.js';
import { day, number, prose, range } from './formats.js';
import { html, type Html } from './html.js';
import { moment, type PageContent } from './layout.js';
import type { IndicatorReportView } from './member-views.js';

type Report = IndicatorReportView['report'];

/** How a status reads to the people who report and review. */
export const REPORT_STATUS: Record<Report['status'], string> = {
  draft: 'Draft, not submitted yet',
  submitted: 'Submitted, waiting for review',
  approved: 'Approved',
  rejected: 'Returned for correction',
};

export const indicatorReportPath = (projectId: string, reportId: string) =>
  `/projects/${projectId}/indicator-reports/${reportId}`;
export const reportingPeriodPath = (projectId: string, periodId: string) =>
  `/projects/${projectId}/reporting-periods/${periodId}`;

const withUnit = (value: number | null, unit: string) =>
  value === null ? 'No value yet' : `${number(value)} ${unit}`;

/** The stored breakdown by disaggregation, categories in the indicator's order; other keys after. */
function breakdown({ report, dimensions }: IndicatorReportView): Html | null {
  const values = report.disaggregatedValues;
  const keys = Object.keys(values);
  if (keys.length === 0) return null;
  const declared = new Set(dimensions.flatMap((d) => d.categories));
  const groups = [
    ...dimensions.map((d) => ({ name: d.name, keys: d.categories.filter((c) => Object.hasOwn(values, c)) })),
    { name: dimensions.length > 0 ? 'Other' : 'Breakdown', keys: keys.filter((k) => !declared.has(k)) },
  ].filter((group) => group.keys.length > 0);
  return html`<h2>Breakdown</h2>
    <div class="scroll">
      <table>
        <thead>
          <tr><th scope="col">Category</th><th scope="col" class="num">Value</th></tr>
        </thead>
        ${groups.map(
          (group) => html`<tbody>
            <tr class="group"><th scope="rowgroup" colspan="2">${group.name}</th></tr>
            ${group.keys.map(
              (key) => html`<tr><th scope="row">${key}</th><td class="num">${number(values[key]!)}</td></tr>`,
            )}
          </tbody>`,
        )}
      </table>
    </div>`;
}

/** Who returned it and why, or the approver's comment. */
function review({ report, reviewer }: IndicatorReportView): Html | null {
  if (!report.reviewedAt) return null;
  const who = reviewer ?? 'A reviewer who has since left';
  if (report.status === 'rejected') {
    return html`<section class="returned" aria-labelledby="returned">
      <h2 id="returned">Returned by ${who}</h2>
      <p class="hint">On ${moment(report.reviewedAt)}, with this comment:</p>
      <blockquote>${prose(report.comment ?? '')}</blockquote>
    </section>`;
  }
  if (report.status === 'approved') {
    return html`<p>Approved by ${who} on ${moment(report.reviewedAt)}.</p>
      ${report.comment ? html`<blockquote>${prose(report.comment)}</blockquote>` : null}`;
  }
  return null;
}

const numberInput = (id: string, label: string, value: number | undefined, describedBy: string) =>
  html`<div class="field" data-key="${id}">
    <label for="${id}">${label}</label>
    <p class="error" id="${id}-error" data-error></p>
    <input type="text" inputmode="decimal" id="${id}" name="${id}" maxlength="40" autocomplete="off"
      value="${value ?? ''}" aria-describedby="${describedBy} ${id}-error" />
  </div>`;

/** The report's data-quality flags as it was last saved: what each says, and the rule's instruction. */
function flagList(flags: readonly ReportFlag[]): Html | null {
  if (flags.length === 0) return null;
  return html`<section class="flags" data-flags aria-labelledby="flags-title">
    <h3 id="flags-title">Data-quality checks</h3>
    <ul>
      ${flags.map(
        (flag) => html`<li data-flag="${flag.kind}" data-importance="${flag.importance}">
          <span dir="auto">${flag.message}</span>
          ${flag.instruction ? html`<br /><span class="hint" dir="auto">${flag.instruction}</span>` : null}
          ${flag.justification ? html`<br /><span class="hint" dir="auto">Justified: ${flag.justification}</span>` : null}
        </li>`,
      )}
    </ul>
  </section>`;
}

/** Value by category when the indicator has disaggregations, else the value itself; and the narrative. */
function editForm(view: IndicatorReportView): Html {
  const { report, indicator, dimensions, member } = view;
  const stored = report.disaggregatedValues;
  const values =
    dimensions.length > 0
      ? html`<p class="hint" id="breakdown-hint">
            Fill in the disaggregations you have; each one filled in must add up to the same total, which
            becomes the value (${indicator.unit}).
          </p>
          ${dimensions.map(
            (dimension, d) => html`<fieldset class="field breakdown" data-key="breakdown-${d}">
              <legend>${dimension.name}</legend>
              <p class="error" data-error></p>
              ${dimension.categories.map(
                (category, c) =>
                  html`<div data-category="${category}">
                  ${numberInput(`category-${d}-${c}`, category, stored[category], 'breakdown-hint')}
                </div>`,
              )}
            </fieldset>`,
          )}`
      : html`<p class="hint" id="value-hint">
            In ${indicator.unit}.${
              Object.keys(stored).length > 0
                ? ' Changing the value removes the breakdown above, which no longer adds up to it.'
                : ''
            }
          </p>
          ${numberInput('value', 'Value', report.value ?? undefined, 'value-hint')}`;
  return html`<form class="report-edit" novalidate data-report-edit
      data-api="/orgs/${member.orgId}/indicator-reports/${report.id}"
      data-breakdown="${dimensions.length > 0 ? 'categories' : Object.keys(stored).length > 0 ? 'stored' : 'none'}"
      data-value="${report.value ?? ''}">
      <h2>${report.status === 'rejected' ? 'Correct and submit again' : 'Complete and submit'}</h2>
      <div class="summary" role="alert" tabindex="-1" data-summary hidden></div>
      ${values}
      <div class="field" data-key="narrative">
        <label for="narrative">Narrative</label>
        <p class="hint" id="narrative-hint">What the number means, its source, what changed. Optional.</p>
        <p class="error" id="narrative-error" data-error></p>
        <textarea id="narrative" name="narrative" rows="6" maxlength="20000"
          aria-describedby="narrative-hint narrative-error">${report.narrative ?? ''}</textarea>
      </div>
      ${flagList(report.flags)}
      <div class="field" data-key="justification">
        <label for="justification">Justification</label>
        <p class="hint" id="justification-hint">
          Needed to submit a value that breaks a validation rule of high importance: why the value stands.
          The reviewer reads it. Optional otherwise.
        </p>
        <p class="error" id="justification-error" data-error></p>
        <textarea id="justification" name="justification" rows="3" maxlength="5000"
          aria-describedby="justification-hint justification-error"></textarea>
      </div>
      <noscript><p class="error">Saving needs JavaScript.</p></noscript>
      <p class="actions">
        <button type="submit" disabled data-ready>Submit for review</button>
        <button type="button" class="secondary" disabled data-ready data-save>Save as draft</button>
      </p>
      <p class="hint" data-saved aria-live="polite"></p>
    </form>
    <div data-step="done" hidden tabindex="-1">
      <h2>Submitted for review</h2>
      <p>The organization's M&amp;E officers review it; if they return it, you get an email with their comment.</p>
    </div>`;
}

/** Why the page offers no way to change the report, when it does not. */
function noEditing({ report, period, member }: IndicatorReportView): Html | null {
  if (!EDITABLE_REPORT_STATUSES.includes(report.status)) return null;
  if (period.isLocked) {
    return html`<p class="notice-line">The reporting period is locked: this report can no longer change.</p>`;
  }
  if (!CONTRIBUTORS.includes(member.role)) {
    return html`<p class="notice-line">Viewers can read this report; reporters and M&amp;E officers change it.</p>`;
  }
  return null;
}

/** The page an emailed link opens: one indicator's value for one project and reporting period. */
export function indicatorReportPage(view: IndicatorReportView, signedInAs: string): PageContent {
  const { report, project, indicator, period, member, submitter } = view;
  const editable =
    EDITABLE_REPORT_STATUSES.includes(report.status) &&
    !period.isLocked &&
    CONTRIBUTORS.includes(member.role);
  return {
    title: `${indicator.name}, ${period.label}`,
    signedInAs,
    scripts: editable ? ['common.js', 'member.js'] : [],
    main: html`<p class="crumbs">
        <a href="${reportingPeriodPath(project.id, period.id)}">${project.name}: ${period.label}</a>
      </p>
      <h1>${indicator.name} <span class="code">${indicator.code}</span></h1>
      <p class="lead">
        ${project.name}, reporting period ${period.label} (${range(period.startDate, period.endDate)})${
          period.dueDate ? html`, due ${day(period.dueDate)}` : null
        }.
      </p>
      <dl class="figures">
        <div><dt>Status</dt><dd class="report-status status-${report.status}" data-status>${REPORT_STATUS[report.status]}</dd></div>
        <div><dt>Value</dt><dd data-shown-value>${withUnit(report.value, indicator.unit)}</dd></div>
        ${report.target === null ? null : html`<div><dt>Target</dt><dd>${withUnit(report.target, indicator.unit)}</dd></div>`}
        ${
          report.submittedAt
            ? html`<div><dt>Last submitted</dt><dd>${moment(report.submittedAt)}${submitter ? ` by ${submitter}` : ''}</dd></div>`
            : null
        }
      </dl>
      ${review(view)} ${breakdown(view)}
      ${report.narrative ? html`<h2>Narrative</h2>${prose(report.narrative)}` : null}
      ${editable ? editForm(view) : noEditing(view)}`,
  };
}
