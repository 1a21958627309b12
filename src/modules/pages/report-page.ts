import {
  directionOf,
  formatDate,
  formatNumber,
  translator,
  type Locale,
  type Translate,
} from '../../lib/i18n/i18n.js';
import type { reportView } from '../reports/index.js';
import { prose } from './formats.js';
import { html, type Html } from './html.js';
import { languageLinks, markup, PAGE_LANGUAGES, type PageContent } from './layout.js';

type SharedReport = ReturnType<typeof reportView>;
type IndicatorEntry = SharedReport['sections']['indicators'][number];

const NARRATIVES = ['challengesLessons', 'recommendations'] as const;

/**
 * What the page's parts share: the strings of the `report` namespace in the page's language, and its
 * numbers and dates as that language writes them.
 */
interface Speech {
  locale: Locale;
  t: Translate;
  /** A number, `—` for none. */
  number: (value: number | null) => string;
  /** A day (`2026-04-03` or a Date): `3 Apr 2026`, `3 avr. 2026`. */
  day: (value: string | Date) => string;
  range: (start: string, end: string) => Html;
  percent: (value: number) => string;
}

function speech(locale: Locale): Speech {
  const t = translator(locale, 'report');
  const number = (value: number | null) => (value === null ? '—' : formatNumber(locale, value));
  const day = (value: string | Date) =>
    formatDate(locale, typeof value === 'string' ? new Date(`${value}T00:00:00Z`) : value, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
  return {
    locale,
    t,
    number,
    day,
    range: (start, end) => html`${day(start)} – ${day(end)}`,
    percent: (value) => t('percent', { value: formatNumber(locale, value) }),
  };
}

/** An enum's value in words: the catalogue's, else the value humanized (a value added since). */
function named(t: Translate, prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  const text = t(key);
  return text === key ? value.charAt(0).toUpperCase() + value.slice(1).replaceAll('_', ' ') : text;
}

function money(s: Speech, currency: string) {
  try {
    const options = { style: 'currency', currency } as const;
    formatNumber(s.locale, 0, options); // Throws for a code Intl does not know.
    return (amount: number) => formatNumber(s.locale, amount, options);
  } catch {
    // Not an ISO 4217 code Intl knows: the amount with the code as written.
    return (amount: number) => `${currency} ${s.number(amount)}`;
  }
}

function size(s: Speech, bytes: number) {
  if (bytes < 1024) return s.t('size.bytes', { value: s.number(bytes) });
  if (bytes < 1024 * 1024) return s.t('size.kb', { value: s.number(Math.round(bytes / 102.4) / 10) });
  return s.t('size.mb', { value: s.number(Math.round(bytes / (1024 * 102.4)) / 10) });
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
function progress(s: Speech, entry: IndicatorEntry): Html {
  const { status, progressPct, toDate } = basisOf(entry);
  const label = s.t(`status.${status}`);
  if (progressPct === null) return html`<span class="status band-${status}">${label}</span>`;
  const pct = formatNumber(s.locale, progressPct);
  return html`<progress
      class="band-${status}"
      max="100"
      value="${Math.min(Math.max(progressPct, 0), 100)}"
      aria-label="${s.t(toDate ? 'progress.ofTargetToDate' : 'progress.ofTarget', { value: pct })}"
    ></progress>
    <span class="pct">${s.percent(progressPct)}</span>
    <span class="status band-${status}">${label}</span>`;
}

/**
 * Where the value comes from, in what applies of "12 submissions, approved by Amina Diallo on 3 Apr 2026";
 * null when nothing does, or for a report assembled before provenance was kept.
 */
function sourceOf(s: Speech, entry: IndicatorEntry): string | null {
  const provenance = entry.provenance;
  if (!provenance) return null;
  const { submissions, approvedAt, approvedBy } = provenance;
  const counted =
    submissions > 0 ? s.t('source.submissions', { count: submissions, n: s.number(submissions) }) : null;
  const approved = approvedAt
    ? s.t(approvedBy ? 'source.approvedBy' : 'source.approved', {
        name: approvedBy ?? '',
        date: s.day(new Date(approvedAt)),
      })
    : null;
  if (counted && approved) return s.t('source.both', { submissions: counted, approval: approved });
  const text = counted ?? approved;
  return text === null ? null : text.charAt(0).toLocaleUpperCase(s.locale) + text.slice(1);
}

/** A formula's inputs as it used them: "Inputs: A = 60 · B = 300". */
const inputsOf = (s: Speech, entry: IndicatorEntry) =>
  entry.inputs && entry.inputs.length > 0
    ? s.t('inputs', {
        inputs: entry.inputs.map((input) => `${input.code} = ${s.number(input.value)}`).join(' · '),
      })
    : null;

function indicatorRows(s: Speech, entry: IndicatorEntry): Html {
  const { t, number } = s;
  // A cross's cells have their own table (crossTable) below.
  const cells = new Set((entry.crossTabulations ?? []).flatMap((cross) => cross.cells.map((c) => c.key)));
  const categories = Object.entries(entry.disaggregatedValues).filter(([key]) => !cells.has(key));
  const source = sourceOf(s, entry);
  const inputs = inputsOf(s, entry);
  return html`<tr>
      <th scope="row">
        <span class="code">${entry.code}</span> ${entry.indicatorName}${
          entry.resultNode
            ? html`<br /><span class="hint"
                  >${named(t, 'level', entry.resultNode.level)}: ${entry.resultNode.title}</span
                >`
            : null
        }
      </th>
      <td class="num">${number(entry.baseline)}</td>
      <td class="num" data-target>
        ${number(basisOf(entry).target)}${
          basisOf(entry).toDate
            ? html`<br /><span class="hint" data-basis="to-date">${t('toDate')}</span>`
            : null
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
      <td class="progress">${progress(s, entry)}</td>
    </tr>
    ${
      entry.narrative.trim() !== ''
        ? html`<tr class="note">
            <td colspan="6">${prose(entry.narrative)}</td>
          </tr> `
        : null
    }`;
}

function periodTable(s: Speech, indicators: IndicatorEntry[]): Html | null {
  const { t, number } = s;
  const columns = new Map<string, string>();
  for (const entry of indicators)
    for (const period of entry.periods) columns.set(period.periodId, period.label);
  if (columns.size === 0) return null;
  const ids = [...columns.keys()];
  const withTargets = indicators.some((entry) => entry.periods.some((period) => period.target !== null));
  return html`<h3>${t('periods.heading')}</h3>
    ${withTargets ? html`<p class="hint">${t('periods.hint')}</p>` : null}
    <div class="scroll">
      <table class="periods">
        <thead>
          <tr>
            <th scope="col">${t('column.indicator')}</th>
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
                      ? html`<br /><span class="hint">${t('periods.ofTarget', { target: number(cell.target) })}</span>`
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
function basisNote(s: Speech, indicators: IndicatorEntry[]): Html | null {
  const toDate = indicators.filter((entry) => basisOf(entry).toDate).length;
  if (toDate === 0) return null;
  return html`<p class="hint" data-basis-note>
    ${s.t(toDate === indicators.length ? 'basis.all' : 'basis.some')}
  </p>`;
}

type CrossTabulation = NonNullable<IndicatorEntry['crossTabulations']>[number];

/**
 * A cross as a small table: the first crossed disaggregation's categories down, every combination of the
 * others across, the margins in the last column and row, the total in the corner.
 */
function crossTable(s: Speech, entry: IndicatorEntry, cross: CrossTabulation): Html {
  const { t, number } = s;
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
          <th scope="col" class="num">${t('total')}</th>
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
          <th scope="row">${t('total')}</th>
          ${columns.map((column) => html`<td class="num">${number(columnTotal(column))}</td>`)}
          <td class="num" data-cross-total>${number(cross.total)}</td>
        </tr>
      </tbody>
    </table>
  </div>`;
}

function crossTables(s: Speech, indicators: IndicatorEntry[]): Html | null {
  const tables = indicators.flatMap((entry) =>
    (entry.crossTabulations ?? []).map((cross) => crossTable(s, entry, cross)),
  );
  return tables.length === 0 ? null : html`<h3>${s.t('cross.heading')}</h3>${tables}`;
}

function indicatorSection(s: Speech, indicators: IndicatorEntry[]): Html {
  const { t } = s;
  if (indicators.length === 0) return html`<p>${t('indicators.none')}</p>`;
  return html`${basisNote(s, indicators)}<div class="scroll">
      <table class="indicators">
        <thead>
          <tr>
            <th scope="col">${t('column.indicator')}</th>
            <th scope="col" class="num">${t('column.baseline')}</th>
            <th scope="col" class="num">${t('column.target')}</th>
            <th scope="col" class="num">${t('column.value')}</th>
            <th scope="col">${t('column.unit')}</th>
            <th scope="col">${t('column.progress')}</th>
          </tr>
        </thead>
        <tbody>
          ${indicators.map((entry) => indicatorRows(s, entry))}
        </tbody>
      </table>
    </div>
    ${crossTables(s, indicators)} ${periodTable(s, indicators)}`;
}

function activitySection(s: Speech, activities: SharedReport['sections']['activities']): Html {
  const { t, number } = s;
  if (activities.length === 0) return html`<p>${t('activities.none')}</p>`;
  return html`<div class="scroll">
    <table>
      <thead>
        <tr>
          <th scope="col">${t('column.activity')}</th>
          <th scope="col">${t('column.dates')}</th>
          <th scope="col">${t('column.location')}</th>
          <th scope="col">${t('column.status')}</th>
          <th scope="col" class="num">${t('column.registered')}</th>
          <th scope="col" class="num">${t('column.attended')}</th>
        </tr>
      </thead>
      <tbody>
        ${activities.map(
          (activity) =>
            html`<tr>
              <th scope="row">${activity.title}</th>
              <td>${s.range(activity.startDate, activity.endDate)}</td>
              <td>${activity.location ?? '—'}</td>
              <td>${named(t, 'activityStatus', activity.status)}</td>
              <td class="num">${number(activity.participantCount)}</td>
              <td class="num">${number(activity.attendedCount)}</td>
            </tr> `,
        )}
      </tbody>
    </table>
  </div>`;
}

function budgetSection(s: Speech, budget: SharedReport['sections']['budget']): Html {
  const { t } = s;
  const format = money(s, budget.currency);
  const burn = budget.burnRate;
  return html`<dl class="figures">
      <div>
        <dt>${t('budget.planned')}</dt>
        <dd data-budget-planned>${format(budget.totalPlanned)}</dd>
      </div>
      <div>
        <dt>${t('budget.spent')}</dt>
        <dd data-budget-actual>${format(budget.totalActual)}</dd>
      </div>
      <div>
        <dt>${t('budget.burnRate')}</dt>
        <dd data-burn-rate>${burn === null ? '—' : s.percent(burn)}</dd>
      </div>
    </dl>
    ${burn === null ? null : html`<progress class="burn" max="100" value="${Math.min(Math.max(burn, 0), 100)}" aria-label="${t('budget.burnRateOf', { value: s.percent(burn) })}"></progress>`}
    ${
      budget.lines.length === 0
        ? html`<p>${t('budget.none')}</p>`
        : html`<div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">${t('column.category')}</th>
                  <th scope="col">${t('column.description')}</th>
                  <th scope="col" class="num">${t('budget.planned')}</th>
                  <th scope="col" class="num">${t('budget.spent')}</th>
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

function attachmentSection(s: Speech, attachments: SharedReport['attachments']): Html {
  if (attachments.length === 0) return html`<p>${s.t('attachments.none')}</p>`;
  return html`<ul class="files">
    ${attachments.map(
      (file) =>
        html`<li>
          <a href="${file.downloadUrl}" download="${file.fileName}">${file.title}</a>
          <span class="hint">${file.fileName}, ${size(s, file.size)}</span>
        </li> `,
    )}
  </ul>`;
}

const isWebAddress = (url: string | null): url is string => url !== null && /^https?:\/\//i.test(url);

/**
 * The donor's view of a shared report, in `locale` (docs/languages.md): everything is in the page;
 * printing gives a clean document. `hrefOf` makes the links to the page in the other languages.
 */
export function reportPage(
  report: SharedReport,
  locale: Locale = 'en',
  hrefOf?: (locale: Locale) => string,
): PageContent {
  const s = speech(locale);
  const { t } = s;
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
    lang: locale,
    dir: directionOf(locale),
    scripts: ['report.js'],
    main: html`${hrefOf ? languageLinks(translator(locale, 'common')('layout.languages'), locale, PAGE_LANGUAGES, (code) => hrefOf(code as Locale)) : null}
      <article class="report">
      <header class="cover">
        ${isWebAddress(logo) ? html`<img class="logo" src="${logo}" alt="" />` : null}
        <p class="org">${cover.organization.name}</p>
        <h1>${report.title}</h1>
        <p class="lead">
          ${cover.projectName} <span class="code">${project.code}</span> · ${project.programName}
        </p>
        <dl class="figures">
          <div>
            <dt>${t('cover.period')}</dt>
            <dd>${s.range(cover.period.startDate, cover.period.endDate)}</dd>
          </div>
          <div>
            <dt>${t('cover.report')}</dt>
            <dd>${named(t, 'reportType', report.reportType)}</dd>
          </div>
          ${
            cover.donors.length > 0
              ? html`<div>
                  <dt>${t('cover.donors')}</dt>
                  <dd>${cover.donors.map((d) => d.name).join(', ')}</dd>
                </div>`
              : null
          }
          ${
            project.location
              ? html`<div>
                  <dt>${t('cover.location')}</dt>
                  <dd>${project.location}</dd>
                </div>`
              : null
          }
          ${
            project.lead
              ? html`<div>
                  <dt>${t('cover.lead')}</dt>
                  <dd>${project.lead}</dd>
                </div>`
              : null
          }
        </dl>
        ${project.description ? html`<p>${project.description}</p>` : null}
        <p class="actions">
          <button type="button" class="secondary" data-print>${t('print')}</button>
        </p>
      </header>
      ${narrative(t('section.executiveSummary'), sections.executiveSummary)}
      <section id="indicators">
        <h2>${t('section.indicators')}</h2>
        ${indicatorSection(s, sections.indicators)}
      </section>
      <section id="activities">
        <h2>${t('section.activities')}</h2>
        ${activitySection(s, sections.activities)}
      </section>
      <section id="budget">
        <h2>${t('section.budget')}</h2>
        ${budgetSection(s, sections.budget)}
      </section>
      ${NARRATIVES.map((key) => narrative(t(`section.${key}`), sections[key]))}
      <section id="attachments">
        <h2>${t('section.attachments')}</h2>
        ${attachmentSection(s, report.attachments)}
      </section>
      <footer class="hint">
        ${markup(t, report.publishedAt ? 'footer.published' : 'footer.shared', {
          org: cover.organization.name,
          date: report.publishedAt ? s.day(report.publishedAt) : '',
        })}
        ${t('footer.snapshot')}
      </footer>
    </article>`,
  };
}
