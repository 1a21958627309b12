import { html, type Html } from './html.js';
import type { IndicatorEntry, Speech } from './report-speech.js';

/**
 * The values period by period, one row per indicator named as on its card. With many periods the table
 * scrolls inside its box, the names staying in view (pages.css), and the page never scrolls sideways.
 */
export function periodTable(s: Speech, indicators: IndicatorEntry[]): Html | null {
  const { t, number } = s;
  const columns = new Map<string, string>();
  for (const entry of indicators)
    for (const period of entry.periods) columns.set(period.periodId, period.label);
  if (columns.size === 0) return null;
  const ids = [...columns.keys()];
  const withTargets = indicators.some((entry) => entry.periods.some((period) => period.target !== null));
  return html`<h3 id="periods-heading">${t('periods.heading')}</h3>
    ${withTargets ? html`<p class="hint">${t('periods.hint')}</p>` : null}
    <div class="scroll" tabindex="0" role="region" aria-labelledby="periods-heading">
      <table class="periods">
        <thead>
          <tr>
            <th scope="col">${t('column.indicator')}</th>
            ${ids.map((id) => html`<th scope="col" class="num" dir="auto">${columns.get(id)}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${indicators.map((entry) => {
            const byPeriod = new Map(entry.periods.map((period) => [period.periodId, period]));
            return html`<tr>
              <th scope="row">
                <span class="name" dir="auto">${entry.indicatorName}</span>
                <span class="code">${entry.code}</span>
              </th>
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
