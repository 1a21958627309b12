import type { reportView } from '../reports/index.js';
import { day, number, numbers, prose, range } from './formats.js';
import { html, type Html } from './html.js';
import type { PageContent } from './layout.js';

type SharedReport = ReturnType<typeof reportView>;
type IndicatorEntry = SharedReport['sections']['indicators'][number];

const STATUS_LABELS: Record<IndicatorEntry['status'], string> = {
  on_track: 'On track',
  at_risk: 'At risk',
  off_track: 'Off track',
  no_target: 'No target',
  no_data: 'No data',
};
const NARRATIVES = [
  ['challengesLessons', 'Challenges and lessons learned'],
  ['recommendations', 'Recommendations'],
] as const;

const humanize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1).replaceAll('_', ' ');

function money(currency: string) {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency });
    return (amount: number) => format.format(amount);
  } catch {
    // Not an ISO 4217 code Intl knows: the amount with the code as written.
    return (amount: number) => `${currency} ${numbers.format(amount)}`;
  }
}

function size(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${numbers.format(Math.round(bytes / 102.4) / 10)} KB`;
  return `${numbers.format(Math.round(bytes / (1024 * 102.4)) / 10)} MB`;
}

/**
 * What the row scores against: the target to date when the report has one for the indicator (the
 * included periods' own targets), else the cumulative target the contract computes.
 */
function basisOf(entry: IndicatorEntry) {
  return entry.targetToDate !== null && entry.statusToDate !== null
    ? {
        toDate: true,
        target: entry.targetToDate,
        progressPct: entry.progressToDatePct,
        status: entry.statusToDate,
      }
    : { toDate: false, target: entry.target, progressPct: entry.progressPct, status: entry.status };
}

/** A bar coloured by the band, with its number and the band in words (colour is never the only sign). */
function progress(entry: IndicatorEntry): Html {
  const { status, progressPct, toDate } = basisOf(entry);
  const label = STATUS_LABELS[status];
  const of = toDate ? 'of target to date' : 'of target';
  if (progressPct === null) return html`<span class="status band-${status}">${label}</span>`;
  return html`<progress
      class="band-${status}"
      max="100"
      value="${Math.min(Math.max(progressPct, 0), 100)}"
      aria-label="${numbers.format(progressPct)}% ${of}"
    ></progress>
    <span class="pct">${numbers.format(progressPct)}%</span>
    <span class="status band-${status}">${label}</span>`;
}

/**
 * Where the value comes from, in what applies of "12 submissions, approved by Amina Diallo on 3 Apr 2026";
 * null when nothing does, or for a report assembled before provenance was kept.
 */
function sourceOf(entry: IndicatorEntry): string | null {
  const provenance = entry.provenance;
  if (!provenance) return null;
  const parts: string[] = [];
  const { submissions, approvedAt, approvedBy } = provenance;
  if (submissions > 0) parts.push(`${numbers.format(submissions)} submission${submissions === 1 ? '' : 's'}`);
  if (approvedAt)
    parts.push(`approved${approvedBy ? ` by ${approvedBy}` : ''} on ${day(new Date(approvedAt))}`);
  const text = parts.join(', ');
  return text === '' ? null : text.charAt(0).toUpperCase() + text.slice(1);
}

/** A formula's inputs as it used them: "Inputs: A = 60 · B = 300". */
const inputsOf = (entry: IndicatorEntry) =>
  entry.inputs && entry.inputs.length > 0
    ? `Inputs: ${entry.inputs.map((input) => `${input.code} = ${number(input.value)}`).join(' · ')}`
    : null;

function indicatorRows(entry: IndicatorEntry): Html {
  // A cross's cells have their own table (crossTable) below.
  const cells = new Set((entry.crossTabulations ?? []).flatMap((cross) => cross.cells.map((c) => c.key)));
  const categories = Object.entries(entry.disaggregatedValues).filter(([key]) => !cells.has(key));
  const source = sourceOf(entry);
  const inputs = inputsOf(entry);
  return html`<tr>
      <th scope="row">
        <span class="code">${entry.code}</span> ${entry.indicatorName}${
          entry.resultNode
            ? html`<br /><span class="hint"
                  >${humanize(entry.resultNode.level)}: ${entry.resultNode.title}</span
                >`
            : null
        }
      </th>
      <td class="num">${number(entry.baseline)}</td>
      <td class="num" data-target>
        ${number(basisOf(entry).target)}${
          basisOf(entry).toDate ? html`<br /><span class="hint" data-basis="to-date">to date</span>` : null
        }
      </td>
      <td class="num" data-value>
        ${number(entry.value)}${
          categories.length > 0
            ? html`<br /><span class="hint"
                  >${categories.map(([name, value], i) => html`${i > 0 ? ' · ' : ''}${name} ${number(value)}`)}</span
                >`
            : null
        }${inputs ? html`<br /><span class="hint" data-inputs>${inputs}</span>` : null}${
          source ? html`<br /><span class="hint" data-source>${source}</span>` : null
        }
      </td>
      <td>${entry.unit}</td>
      <td class="progress">${progress(entry)}</td>
    </tr>
    ${
      entry.narrative.trim() !== ''
        ? html`<tr class="note">
            <td colspan="6">${prose(entry.narrative)}</td>
          </tr> `
        : null
    }`;
}

function periodTable(indicators: IndicatorEntry[]): Html | null {
  const columns = new Map<string, string>();
  for (const entry of indicators)
    for (const period of entry.periods) columns.set(period.periodId, period.label);
  if (columns.size === 0) return null;
  const ids = [...columns.keys()];
  const withTargets = indicators.some((entry) => entry.periods.some((period) => period.target !== null));
  return html`<h3>Values by reporting period</h3>
    ${withTargets ? html`<p class="hint">Each cell: the value, then the period's target.</p>` : null}
    <div class="scroll">
      <table class="periods">
        <thead>
          <tr>
            <th scope="col">Indicator</th>
            ${ids.map((id) => html`<th scope="col" class="num">${columns.get(id)}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${indicators.map((entry) => {
            const byPeriod = new Map(entry.periods.map((period) => [period.periodId, period]));
            return html`<tr>
              <th scope="row"><span class="code">${entry.code}</span></th>
              ${ids.map((id) => {
                const cell = byPeriod.get(id);
                return html`<td class="num">
                  ${number(cell?.value ?? null)}${
                    cell?.target != null
                      ? html`<br /><span class="hint">of ${number(cell.target)}</span>`
                      : null
                  }
                </td>`;
              })}
            </tr> `;
          })}
        </tbody>
      </table>
    </div>`;
}

/** Says which target the rows are scored against, when any row is scored to date. */
function basisNote(indicators: IndicatorEntry[]): Html | null {
  const toDate = indicators.filter((entry) => basisOf(entry).toDate).length;
  if (toDate === 0) return null;
  const periods = 'the targets of the reporting periods in this report, combined as the values are';
  return html`<p class="hint" data-basis-note>
    ${
      toDate === indicators.length
        ? `Targets and progress are to date: ${periods}.`
        : `Targets and progress marked “to date” are against ${periods}; the others are against the ` +
          'cumulative target.'
    }
  </p>`;
}

type CrossTabulation = NonNullable<IndicatorEntry['crossTabulations']>[number];

/**
 * A cross as a small table: the first crossed disaggregation's categories down, every combination of the
 * others across, the margins in the last column and row, the total in the corner.
 */
function crossTable(entry: IndicatorEntry, cross: CrossTabulation): Html {
  const [rows, ...rest] = cross.dimensions;
  const byKey = new Map(cross.cells.map((cell) => [cell.key, cell]));
  const columns = cross.cells
    .filter((cell) => cell.categories[0] === rows?.categories[0]?.category)
    .map((cell) => cell.categories.slice(1));
  const columnTotal = (column: string[]) =>
    rest.length === 1
      ? (rest[0]!.categories.find((c) => c.category === column[0])?.value ?? null)
      : cross.cells
          .filter((cell) => cell.categories.slice(1).join('|') === column.join('|') && cell.value !== null)
          .reduce<number | null>((sum, cell) => (sum ?? 0) + cell.value!, null);
  return html`<div class="scroll">
    <table class="cross" data-cross="${cross.name}">
      <caption>
        <span class="code">${entry.code}</span> ${entry.indicatorName}: ${cross.name}
      </caption>
      <thead>
        <tr>
          <th scope="col">${cross.crosses[0]} \\ ${cross.crosses.slice(1).join(' · ')}</th>
          ${columns.map((column) => html`<th scope="col" class="num">${column.join(' · ')}</th>`)}
          <th scope="col" class="num">Total</th>
        </tr>
      </thead>
      <tbody>
        ${(rows?.categories ?? []).map(
          (row) =>
            html`<tr>
              <th scope="row">${row.category}</th>
              ${columns.map(
                (column) =>
                  html`<td class="num" data-cell="${[row.category, ...column].join('|')}">
                    ${number(byKey.get([row.category, ...column].join('|'))?.value ?? null)}
                  </td>`,
              )}
              <td class="num">${number(row.value)}</td>
            </tr> `,
        )}
        <tr>
          <th scope="row">Total</th>
          ${columns.map((column) => html`<td class="num">${number(columnTotal(column))}</td>`)}
          <td class="num" data-cross-total>${number(cross.total)}</td>
        </tr>
      </tbody>
    </table>
  </div>`;
}

function crossTables(indicators: IndicatorEntry[]): Html | null {
  const tables = indicators.flatMap((entry) =>
    (entry.crossTabulations ?? []).map((cross) => crossTable(entry, cross)),
  );
  return tables.length === 0 ? null : html`<h3>Cross-tabulated values</h3>${tables}`;
}

function indicatorSection(indicators: IndicatorEntry[]): Html {
  if (indicators.length === 0) return html`<p>No indicators are linked to this project.</p>`;
  return html`${basisNote(indicators)}<div class="scroll">
      <table class="indicators">
        <thead>
          <tr>
            <th scope="col">Indicator</th>
            <th scope="col" class="num">Baseline</th>
            <th scope="col" class="num">Target</th>
            <th scope="col" class="num">Value</th>
            <th scope="col">Unit</th>
            <th scope="col">Progress</th>
          </tr>
        </thead>
        <tbody>
          ${indicators.map(indicatorRows)}
        </tbody>
      </table>
    </div>
    ${crossTables(indicators)} ${periodTable(indicators)}`;
}

function activitySection(activities: SharedReport['sections']['activities']): Html {
  if (activities.length === 0) return html`<p>No activities in this period.</p>`;
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th scope="col">Activity</th>
          <th scope="col">Dates</th>
          <th scope="col">Location</th>
          <th scope="col">Status</th>
          <th scope="col" class="num">Registered</th>
          <th scope="col" class="num">Attended</th>
        </tr>
      </thead>
      <tbody>
        ${activities.map(
          (activity) =>
            html`<tr>
              <th scope="row">${activity.title}</th>
              <td>${range(activity.startDate, activity.endDate)}</td>
              <td>${activity.location ?? '—'}</td>
              <td>${humanize(activity.status)}</td>
              <td class="num">${number(activity.participantCount)}</td>
              <td class="num">${number(activity.attendedCount)}</td>
            </tr> `,
        )}
      </tbody>
    </table>
  </div>`;
}

function budgetSection(budget: SharedReport['sections']['budget']): Html {
  const format = money(budget.currency);
  const burn = budget.burnRate;
  return html`<dl class="figures">
      <div>
        <dt>Planned</dt>
        <dd data-budget-planned>${format(budget.totalPlanned)}</dd>
      </div>
      <div>
        <dt>Spent</dt>
        <dd data-budget-actual>${format(budget.totalActual)}</dd>
      </div>
      <div>
        <dt>Burn rate</dt>
        <dd data-burn-rate>${burn === null ? '—' : `${numbers.format(burn)}%`}</dd>
      </div>
    </dl>
    ${burn === null ? null : html`<progress class="burn" max="100" value="${Math.min(Math.max(burn, 0), 100)}" aria-label="Burn rate ${numbers.format(burn)}%"></progress>`}
    ${
      budget.lines.length === 0
        ? html`<p>No budget lines.</p>`
        : html`<div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Category</th>
                  <th scope="col">Description</th>
                  <th scope="col" class="num">Planned</th>
                  <th scope="col" class="num">Spent</th>
                </tr>
              </thead>
              <tbody>
                ${budget.lines.map(
                  (line) =>
                    html`<tr>
                      <th scope="row">${line.category}</th>
                      <td>${line.description ?? ''}</td>
                      <td class="num">${format(line.plannedAmount)}</td>
                      <td class="num">${format(line.actualAmount)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}

function attachmentSection(attachments: SharedReport['attachments']): Html {
  if (attachments.length === 0) return html`<p>No attachments.</p>`;
  return html`<ul class="files">
    ${attachments.map(
      (file) =>
        html`<li>
          <a href="${file.downloadUrl}" download="${file.fileName}">${file.title}</a>
          <span class="hint">${file.fileName}, ${size(file.size)}</span>
        </li> `,
    )}
  </ul>`;
}

const isWebAddress = (url: string | null): url is string => url !== null && /^https?:\/\//i.test(url);

/** The donor's view of a shared report: everything is in the page; printing gives a clean document. */
export function reportPage(report: SharedReport): PageContent {
  const { cover, project, sections } = report;
  const logo = cover.organization.logoUrl;
  const narrative = (title: string, text: string) =>
    text.trim() === ''
      ? null
      : html`<section>
          <h2>${title}</h2>
          ${prose(text)}
        </section> `;
  return {
    title: report.title,
    scripts: ['report.js'],
    main: html`<article class="report">
      <header class="cover">
        ${isWebAddress(logo) ? html`<img class="logo" src="${logo}" alt="" />` : null}
        <p class="org">${cover.organization.name}</p>
        <h1>${report.title}</h1>
        <p class="lead">
          ${cover.projectName} <span class="code">${project.code}</span> · ${project.programName}
        </p>
        <dl class="figures">
          <div>
            <dt>Period</dt>
            <dd>${range(cover.period.startDate, cover.period.endDate)}</dd>
          </div>
          <div>
            <dt>Report</dt>
            <dd>${humanize(report.reportType)}</dd>
          </div>
          ${
            cover.donors.length > 0
              ? html`<div>
                  <dt>Donors</dt>
                  <dd>${cover.donors.map((d) => d.name).join(', ')}</dd>
                </div>`
              : null
          }
          ${
            project.location
              ? html`<div>
                  <dt>Location</dt>
                  <dd>${project.location}</dd>
                </div>`
              : null
          }
          ${
            project.lead
              ? html`<div>
                  <dt>Project lead</dt>
                  <dd>${project.lead}</dd>
                </div>`
              : null
          }
        </dl>
        ${project.description ? html`<p>${project.description}</p>` : null}
        <p class="actions">
          <button type="button" class="secondary" data-print>Print or save as PDF</button>
        </p>
      </header>
      ${narrative('Executive summary', sections.executiveSummary)}
      <section id="indicators">
        <h2>Indicators</h2>
        ${indicatorSection(sections.indicators)}
      </section>
      <section id="activities">
        <h2>Activities</h2>
        ${activitySection(sections.activities)}
      </section>
      <section id="budget">
        <h2>Budget</h2>
        ${budgetSection(sections.budget)}
      </section>
      ${NARRATIVES.map(([key, title]) => narrative(title, sections[key]))}
      <section id="attachments">
        <h2>Attachments</h2>
        ${attachmentSection(report.attachments)}
      </section>
      <footer class="hint">
        Shared by
        ${cover.organization.name}${
          report.publishedAt ? html` · published ${day(report.publishedAt)}` : null
        }.
        The figures are a snapshot taken when the report was assembled.
      </footer>
    </article>`,
  };
}
