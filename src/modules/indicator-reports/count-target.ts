import type { Db } from '../../db/client.js';
import { badRequest, notFound, periodLocked } from '../../errors/catalogue.js';
import { isLinked, lockIndicatorForShare } from '../indicators/index.js';
import { lockPeriodForShare } from '../periods/index.js';

/** Why an indicator and a reporting period cannot take counts from a project's report or form. */
export type CountTargetRefusal =
  | 'indicator-missing'
  | 'formula-indicator'
  | 'indicator-not-linked'
  | 'period-missing'
  | 'period-of-another-project'
  | 'period-locked';

/**
 * The indicator and period a form or an indicator report counts into, locked FOR SHARE (neither can
 * change under the count), and every refusal that applies. Each caller answers the first refusal in its
 * own order (forms and reports have always checked in different orders, which the contract keeps).
 */
export async function countTarget(
  tx: Db,
  orgId: string,
  projectId: string,
  target: { indicatorId?: string | null; reportingPeriodId?: string | null },
) {
  const indicator = target.indicatorId ? await lockIndicatorForShare(tx, orgId, target.indicatorId) : null;
  const period = target.reportingPeriodId
    ? await lockPeriodForShare(tx, orgId, target.reportingPeriodId)
    : null;
  const refusals = new Set<CountTargetRefusal>();
  if (target.indicatorId && !indicator) refusals.add('indicator-missing');
  if (indicator?.isFormula) refusals.add('formula-indicator');
  else if (indicator && !(await isLinked(tx, orgId, projectId, indicator.id))) {
    refusals.add('indicator-not-linked');
  }
  if (target.reportingPeriodId && !period) refusals.add('period-missing');
  if (period && period.projectId !== projectId) refusals.add('period-of-another-project');
  if (period?.isLocked) refusals.add('period-locked');
  return { indicator, period, refusals };
}

const NOT_LINKED = 'indicatorId must be an indicator linked to the project';
const FORMULA = 'Formula indicators are computed and cannot receive reports';

/**
 * The answer to the first of `refusals` in `order`, if any. `formulaAbout` says whether the formula
 * refusal names the indicatorId field in its details (reports do; forms, from before, leave it unnamed).
 */
export function refusedCountTarget(
  refusals: ReadonlySet<CountTargetRefusal>,
  order: readonly CountTargetRefusal[],
  formulaAbout: 'indicatorId' | 'unnamed',
): Error | null {
  const first = order.find((refusal) => refusals.has(refusal));
  switch (first) {
    case undefined:
      return null;
    case 'indicator-missing':
      return notFound('Indicator');
    case 'period-missing':
      return notFound('Reporting period');
    case 'period-of-another-project':
      return badRequest('reportingPeriodId must be a reporting period of this project');
    case 'period-locked':
      return periodLocked();
    case 'formula-indicator':
      return badRequest(
        formulaAbout === 'indicatorId'
          ? { path: '/indicatorId', rule: 'invalid', message: FORMULA }
          : FORMULA,
      );
    case 'indicator-not-linked':
      return badRequest(NOT_LINKED);
  }
}
