import { formatNumber } from '../../lib/i18n/i18n.js';
import { prose } from './formats.js';
import { html, type Html } from './html.js';
import { breakdownSection } from './report-breakdowns.js';
import { periodTable } from './report-periods.js';
import { qualityNotes } from './report-quality.js';
import { named, type IndicatorEntry, type Speech } from './report-speech.js';

/**
 * What the card scores against: the target to date when the report has one for the indicator (the
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
  if (progressPct === null)
    return html`<p class="meter"><span class="status band-${status}">${label}</span></p>`;
  const pct = formatNumber(s.locale, progressPct);
  return html`<p class="meter">
    <progress
      class="band-${status}"
      max="100"
      value="${Math.min(Math.max(progressPct, 0), 100)}"
      aria-label="${s.t(toDate ? 'progress.ofTargetToDate' : 'progress.ofTarget', { value: pct })}"
    ></progress>
    <span class="pct">${s.percent(progressPct)}</span>
    <span class="status band-${status}">${label}</span>
  </p>`;
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

/** Value, target and baseline side by side; the value with its unit, the target saying when it is to date. */
function measures(s: Speech, entry: IndicatorEntry): Html {
  const { t, number } = s;
  const { target, toDate } = basisOf(entry);
  return html`<dl class="measures">
    <div>
      <dt>${t('column.value')}</dt>
      <dd data-value>
        ${number(entry.value)}${entry.unit ? html` <span class="unit" dir="auto">${entry.unit}</span>` : null}
      </dd>
    </div>
    <div>
      <dt>${t('column.target')}</dt>
      <dd data-target>
        ${number(target)}${toDate ? html`<br /><span class="hint" data-basis="to-date">${t('toDate')}</span>` : null}
      </dd>
    </div>
    <div>
      <dt>${t('column.baseline')}</dt>
      <dd data-baseline>${number(entry.baseline)}</dd>
    </div>
  </dl>`;
}

/**
 * One indicator as a card that fits a phone: name, figures and their data-quality notes, progress and
 * band, then its breakdowns.
 */
function indicatorCard(s: Speech, entry: IndicatorEntry): Html {
  const source = sourceOf(s, entry);
  const inputs = inputsOf(s, entry);
  return html`<article class="card" data-indicator="${entry.code}">
    <h3>
      <span class="code">${entry.code}</span>
      <span class="name" dir="auto">${entry.indicatorName}</span>
    </h3>
    ${
      entry.resultNode
        ? html`<p class="hint">
            ${named(s.t, 'level', entry.resultNode.level)}: <span dir="auto">${entry.resultNode.title}</span>
          </p>`
        : null
    }
    ${measures(s, entry)} ${qualityNotes(s, entry)} ${progress(s, entry)} ${breakdownSection(s, entry)}
    ${
      inputs || source
        ? html`<p class="sources">
            ${inputs ? html`<span class="hint" data-inputs>${inputs}</span>` : null}
            ${source ? html`<span class="hint" data-source>${source}</span>` : null}
          </p>`
        : null
    }
    ${entry.narrative.trim() !== '' ? html`<div class="note">${prose(entry.narrative)}</div>` : null}
  </article>`;
}

/** Says which target the cards are scored against, when any card is scored to date. */
function basisNote(s: Speech, indicators: IndicatorEntry[]): Html | null {
  const toDate = indicators.filter((entry) => basisOf(entry).toDate).length;
  if (toDate === 0) return null;
  return html`<p class="hint" data-basis-note>
    ${s.t(toDate === indicators.length ? 'basis.all' : 'basis.some')}
  </p>`;
}

export function indicatorSection(s: Speech, indicators: IndicatorEntry[]): Html {
  if (indicators.length === 0) return html`<p>${s.t('indicators.none')}</p>`;
  return html`${basisNote(s, indicators)}
    <div class="cards">${indicators.map((entry) => indicatorCard(s, entry))}</div>
    ${periodTable(s, indicators)}`;
}
