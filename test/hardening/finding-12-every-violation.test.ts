import { describe, it } from 'vitest';
import { call, expectViolations } from '../helpers/http.js';
import { indicatorCode, indicatorsUrl } from '../helpers/indicators.js';
import { useSuite } from '../helpers/suite.js';

const { t, team } = useSuite();

const create = (body: unknown) => call(t.app, 'POST', indicatorsUrl(team.org.id), { as: team.officer, body });

describe('finding 12: an indicator without aggregationMethod is refused with every violation at once', () => {
  it('lists all four missing fields of {}', async () => {
    expectViolations(
      await create({}),
      'name is required',
      'code is required',
      'unit is required',
      'aggregationMethod is required',
    );
  });

  it('lists aggregationMethod beside the other violations of the body', async () => {
    expectViolations(
      await create({ name: 'Wells', code: '1bad', isFormula: false }),
      'code must be 1 to 64 letters, digits or underscores, starting with a letter or underscore, as formulas name indicators by code',
      'unit is required',
      'aggregationMethod is required',
    );
  });

  it('does not ask a formula indicator for one', async () => {
    expectViolations(
      await create({ isFormula: true, formula: 'A + B' }),
      'name is required',
      'code is required',
      'unit is required',
    );
  });

  it('still refuses the body with only aggregationMethod missing', async () => {
    expectViolations(
      await create({ name: 'Wells', code: indicatorCode(), unit: 'wells' }),
      'aggregationMethod is required',
    );
  });
});
