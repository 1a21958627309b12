import { badRequest } from '../../errors/catalogue.js';
import type { QualityChecks } from '../../lib/outliers.js';

/**
 * The checks as stored, after the rules the schema cannot say: a threshold only for the scores, bounds
 * only for min_max (at least one, in order). Each option belongs to one method, so that a stored object
 * never carries a number that does nothing.
 */
export function checkedQualityChecks(checks: QualityChecks | null): QualityChecks | null {
  if (checks === null) return null;
  const { method, threshold, min, max } = checks;
  const problems: string[] = [];
  const scored = method === 'modified_z' || method === 'z';
  if (threshold !== undefined && !scored) {
    problems.push('qualityChecks.threshold is only allowed with the modified_z and z methods');
  }
  if (method !== 'min_max') {
    for (const [name, bound] of [['min', min] as const, ['max', max] as const]) {
      if (bound !== undefined) problems.push(`qualityChecks.${name} is only allowed with the min_max method`);
    }
  } else if (min === undefined && max === undefined) {
    problems.push('qualityChecks needs min, max or both with the min_max method');
  } else if (min !== undefined && max !== undefined && min > max) {
    problems.push('qualityChecks.min must not be greater than qualityChecks.max');
  }
  if (problems.length > 0) throw badRequest(...problems);
  return checks;
}
