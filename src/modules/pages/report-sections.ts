import { formatNumber } from '../../lib/i18n/i18n.js';
import { html, type Html } from './html.js';
import { named, type SharedReport, type Speech } from './report-speech.js';

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

/** A table that may be wider than a phone: it scrolls inside its box, never the page. */
const scrolling = (label: string, table: Html) =>
  html`<div class="scroll" tabindex="0" role="region" aria-label="${label}">${table}</div>`;

export function activitySection(s: Speech, activities: SharedReport['sections']['activities']): Html {
  const { t, number } = s;
  if (activities.length === 0) return html`<p>${t('activities.none')}</p>`;
  return scrolling(
    t('section.activities'),
    html`<table>
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
              <th scope="row" dir="auto">${activity.title}</th>
              <td>${s.range(activity.startDate, activity.endDate)}</td>
              <td dir="auto">${activity.location ?? '—'}</td>
              <td>${named(t, 'activityStatus', activity.status)}</td>
              <td class="num">${number(activity.participantCount)}</td>
              <td class="num">${number(activity.attendedCount)}</td>
            </tr> `,
        )}
      </tbody>
    </table>`,
  );
}

function budgetLines(s: Speech, budget: SharedReport['sections']['budget']): Html {
  const { t } = s;
  const format = money(s, budget.currency);
  if (budget.lines.length === 0) return html`<p>${t('budget.none')}</p>`;
  return scrolling(
    t('section.budget'),
    html`<table>
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
              <th scope="row" dir="auto">${line.category}</th>
              <td dir="auto">${line.description ?? ''}</td>
              <td class="num">${format(line.plannedAmount)}</td>
              <td class="num">${format(line.actualAmount)}</td>
            </tr> `,
        )}
      </tbody>
    </table>`,
  );
}

export function budgetSection(s: Speech, budget: SharedReport['sections']['budget']): Html {
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
    ${budgetLines(s, budget)}`;
}

export function attachmentSection(s: Speech, attachments: SharedReport['attachments']): Html {
  if (attachments.length === 0) return html`<p>${s.t('attachments.none')}</p>`;
  return html`<ul class="files">
    ${attachments.map(
      (file) =>
        html`<li>
          <a href="${file.downloadUrl}" download="${file.fileName}" dir="auto">${file.title}</a>
          <span class="hint" dir="auto">${file.fileName}, ${size(s, file.size)}</span>
        </li> `,
    )}
  </ul>`;
}
