import { html, type Html } from './html.js';
import { markup } from './layout.js';
import type { IndicatorEntry, Speech } from './report-speech.js';

type QualityNote = NonNullable<IndicatorEntry['qualityNotes']>[number];

/**
 * What a note is about: its period, and the kind of check; a rule's importance in words, never a number
 * (an outlier's is always medium, which tells a donor nothing).
 */
const aboutOf = (s: Speech, note: QualityNote) =>
  note.kind === 'rule'
    ? s.t('quality.rule', { period: note.period, importance: s.t(`quality.importance.${note.importance}`) })
    : s.t('quality.outlier', { period: note.period });

/**
 * One note: "Note (Q1 2026 · unusual value): 12,000 is 10x the median … — Justification: a new district
 * joined". The message is the check's own, in English as it was written; one that would quote figures the
 * report does not show was left out when the report was assembled, and the note says only that a check
 * flagged the value.
 */
function noteLine(s: Speech, note: QualityNote): Html {
  const message =
    note.message === null
      ? html`<span data-withheld>${s.t('quality.withheld')}</span>`
      : html`<span dir="auto" data-message>${note.message}</span>`;
  return html`<li data-quality-note data-period="${note.periodId}" data-kind="${note.kind}">
    ${markup(s.t, 'quality.line', {
      label: html`<strong>${s.t('quality.label')}</strong>`,
      about: aboutOf(s, note),
      message,
    })}${
      note.justification
        ? html` —
            <span data-justification
              >${markup(s.t, 'quality.justification', { text: html`<span dir="auto">${note.justification}</span>` })}</span
            >`
        : null
    }
  </li>`;
}

/**
 * The data-quality notes of an indicator's values, under its figures; nothing when it has none, or when
 * the report was served without them (the organization does not show them).
 */
export function qualityNotes(s: Speech, entry: IndicatorEntry): Html | null {
  const notes = entry.qualityNotes ?? [];
  if (notes.length === 0) return null;
  return html`<ul class="quality-notes" data-quality-notes>
    ${notes.map((note) => noteLine(s, note))}
  </ul>`;
}
