import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { expectError, expectViolations, TIMESTAMP } from '../../../test/helpers/http.js';
import { conflictBody, indicatorScene } from '../../../test/helpers/indicator-scenes.js';
import { indicatorCode, type IndicatorJson } from '../../../test/helpers/indicators.js';
import { formulaInputs } from './indicators.tables.js';
import { useSuite } from '../../../test/helpers/suite.js';

const { t, team } = useSuite();
const scene = indicatorScene(() => ({ t, team }));
const { create, patch, remove, list, indicator, formulaIndicator, stored, reportOn } = scene;

describe('formula indicators', () => {
  it('sending a formula makes a formula indicator; aggregationMethod is optional', async () => {
    const girls = await indicator();
    const boys = await indicator();
    const code = indicatorCode('RATE');
    const formula = `(${girls.code} + ${boys.code}) / 2 * 100`;
    const res = await create({ name: 'Rate', code, unit: '%', formula: `  ${formula} ` });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      orgId: team.org.id,
      name: 'Rate',
      code,
      unit: '%',
      aggregationMethod: null,
      description: null,
      dataSource: null,
      resultNodeId: null,
      isFormula: true,
      formula,
      qualityChecks: null,
      createdAt: expect.stringMatching(TIMESTAMP),
      updatedAt: expect.stringMatching(TIMESTAMP),
    });
    const inputs = await t.database.db
      .select({ inputId: formulaInputs.inputId })
      .from(formulaInputs)
      .where(eq(formulaInputs.indicatorId, res.body.id));
    expect(inputs.map((i) => i.inputId).sort()).toEqual([girls.id, boys.id].sort());

    const explicit = await create({
      name: 'Average',
      code: indicatorCode(),
      unit: 'x',
      isFormula: true,
      formula: girls.code,
      aggregationMethod: 'average',
    });
    expect(explicit.status).toBe(201);
    expect(explicit.body).toMatchObject({
      isFormula: true,
      formula: girls.code,
      aggregationMethod: 'average',
    });
  });

  it('matches codes whatever their case', async () => {
    const input = await indicator({ code: indicatorCode('Mixed') });
    const formula = `${input.code.toLowerCase()} + ${input.code.toUpperCase()}`;
    const res = await create({ name: 'x', code: indicatorCode(), unit: 'x', formula });
    expect([res.status, res.body.formula]).toEqual([201, formula]);
  });

  it('rejects a formula that contradicts isFormula (400)', async () => {
    const input = await indicator();
    const base = { name: 'x', code: indicatorCode(), unit: 'x' };
    expectViolations(
      await create({ ...base, isFormula: true, aggregationMethod: 'sum' }),
      'formula is required when isFormula is true',
    );
    expectViolations(
      await create({ ...base, isFormula: true, formula: '  ' }),
      'formula is required when isFormula is true',
    );
    expectViolations(
      await create({ ...base, isFormula: false, formula: input.code, aggregationMethod: 'sum' }),
      'formula is only allowed when isFormula is true',
    );
    expect((await list('', team.admin)).body.some((i: IndicatorJson) => i.code === base.code)).toBe(false);
  });

  it('rejects unknown codes, its own code and forbidden syntax (400)', async () => {
    const input = await indicator();
    const code = indicatorCode('SELF');
    const base = { name: 'x', code, unit: 'x' };
    expectViolations(
      await create({ ...base, formula: `${input.code} + NOPE_1 * Nope_2` }),
      'formula uses unknown indicator code NOPE_1',
      'formula uses unknown indicator code Nope_2',
    );
    expectViolations(
      await create({ ...base, formula: `${input.code} + ${code.toLowerCase()}` }),
      'formula must not use the indicator’s own code',
    );
    expectViolations(
      await create({ ...base, formula: `${input.code} % 2` }),
      'formula: operator % is not allowed',
    );
    expectViolations(
      await create({ ...base, formula: `Math.max(${input.code})` }),
      'formula: function calls are not allowed',
    );
    expect((await list('', team.admin)).body.some((i: IndicatorJson) => i.code === code)).toBe(false);
  });

  it('refuses a formula that closes a cycle (400), directly or through other formulas', async () => {
    const c = await indicator({ code: indicatorCode('C') });
    const b = await indicator({ code: indicatorCode('B') });
    const a = await formulaIndicator(`${b.code} * 2`);

    expectViolations(
      await patch(b.id, { formula: a.code }),
      `formula creates a cycle: ${a.code} depends on this indicator`,
    );
    expect(await stored(b.id)).toMatchObject({ isFormula: false, formula: null });

    const bUsesC = await patch(b.id, { formula: `${c.code} + 1` });
    expect([bUsesC.status, bUsesC.body.isFormula, bUsesC.body.formula]).toEqual([200, true, `${c.code} + 1`]);
    expectViolations(
      await patch(c.id, { formula: `1 + ${a.code.toLowerCase()}` }),
      `formula creates a cycle: ${a.code} depends on this indicator`,
    );
    expect(await stored(c.id)).toMatchObject({ isFormula: false, formula: null });
    expectViolations(await patch(a.id, { formula: a.code }), 'formula must not use the indicator’s own code');
  });

  it('lets only one of two concurrent edits close a cycle', async () => {
    const a = await indicator();
    const b = await indicator();
    const [first, second] = await Promise.all([
      patch(a.id, { formula: b.code }),
      patch(b.id, { formula: a.code }),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 400]);
    const edges = await t.database.db.select().from(formulaInputs);
    expect(edges.filter((e) => e.indicatorId === a.id || e.indicatorId === b.id)).toHaveLength(1);
  });

  it('keeps a formula indicator a formula: clearing the formula alone is 400', async () => {
    const input = await indicator();
    const user = await formulaIndicator(input.code);
    for (const formula of [null, ' ']) {
      expectViolations(await patch(user.id, { formula }), 'formula is required when isFormula is true');
    }
    expect(await stored(user.id)).toMatchObject({ isFormula: true, formula: input.code });
  });

  it('replaces a formula that no longer closes a cycle', async () => {
    const b = await indicator();
    const a = await formulaIndicator(b.code);
    const other = await indicator();
    // a no longer reads b: b may now read a.
    expect((await patch(a.id, { formula: other.code })).status).toBe(200);
    const res = await patch(b.id, { formula: a.code });
    expect([res.status, res.body.formula]).toEqual([200, a.code]);
  });

  it('refuses to rename a code a formula uses (409) but allows a change of case', async () => {
    const input = await indicator({ code: indicatorCode('In') });
    const user = await formulaIndicator(`${input.code} * 2`);
    expectError(
      await patch(input.id, { code: indicatorCode('Renamed') }),
      conflictBody(`Indicator code is used in the formula of ${user.code}`),
    );
    expect((await stored(input.id))!.code).toBe(input.code);
    const second = await formulaIndicator(`${input.code} + 1`, { code: `${user.code}_2` });
    expectError(
      await patch(input.id, { code: indicatorCode('Renamed') }),
      conflictBody(`Indicator code is used in the formula of ${user.code}, ${second.code}`),
    );
    const recased = await patch(input.id, { code: input.code.toUpperCase() });
    expect([recased.status, recased.body.code]).toEqual([200, input.code.toUpperCase()]);
  });

  it('refuses to delete an indicator a formula uses (409) until the formula is removed', async () => {
    const input = await indicator();
    const user = await formulaIndicator(`${input.code} + 1`);
    expectError(await remove(input.id), conflictBody(`Indicator is used in the formula of ${user.code}`));
    expect(await stored(input.id)).toBeDefined();

    expectViolations(await patch(user.id, { isFormula: false }), 'aggregationMethod is required');
    expect(await stored(user.id)).toMatchObject({ isFormula: true, formula: `${input.code} + 1` });

    const plain = await patch(user.id, { isFormula: false, aggregationMethod: 'max' });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ isFormula: false, formula: null, aggregationMethod: 'max' });
    const res = await remove(input.id);
    expect([res.status, res.body]).toEqual([204, null]);
    expect(await stored(input.id)).toBeUndefined();
  });

  it('refuses to make an indicator with reports a formula (409)', async () => {
    const input = await indicator();
    const reported = await indicator();
    await reportOn(reported.id);
    expectError(
      await patch(reported.id, { formula: input.code }),
      conflictBody('Indicator has indicator reports; a formula indicator cannot have any'),
    );
    expect(await stored(reported.id)).toMatchObject({ isFormula: false, formula: null });
  });
});
