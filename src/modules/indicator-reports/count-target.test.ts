import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/catalogue.js';
import { refusedCountTarget, type CountTargetRefusal } from './count-target.js';

const refusals = new Set<CountTargetRefusal>(['formula-indicator', 'period-of-another-project']);

describe('refusedCountTarget', () => {
  it("answers the first refusal in the caller's order, and none when nothing is refused", () => {
    const formFirst = refusedCountTarget(
      refusals,
      ['formula-indicator', 'period-of-another-project'],
      'unnamed',
    );
    const periodFirst = refusedCountTarget(
      refusals,
      ['period-of-another-project', 'formula-indicator'],
      'unnamed',
    );
    expect(formFirst?.message).toBe('Formula indicators are computed and cannot receive reports');
    expect(periodFirst?.message).toBe('reportingPeriodId must be a reporting period of this project');
    expect(refusedCountTarget(new Set(), ['indicator-missing'], 'unnamed')).toBeNull();
  });

  it('names the indicatorId in the formula refusal only for reports', () => {
    const named = refusedCountTarget(refusals, ['formula-indicator'], 'indicatorId') as AppError;
    const unnamed = refusedCountTarget(refusals, ['formula-indicator'], 'unnamed') as AppError;
    expect(named.details).toEqual([expect.objectContaining({ path: '/indicatorId' })]);
    expect(unnamed.details).toEqual(['Formula indicators are computed and cannot receive reports']);
  });
});
