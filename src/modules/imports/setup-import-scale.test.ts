import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCountingTestApp } from '../../../test/helpers/app.js';
import { createProject, createTeam, type Team } from '../../../test/helpers/factories.js';
import { importSetup, xlsx, type Cell, type Sheets } from '../../../test/helpers/imports.js';
import { disaggregations, indicators } from '../indicators/indicators.tables.js';

let t: Awaited<ReturnType<typeof buildCountingTestApp>>;
let team: Team;

beforeAll(async () => {
  t = await buildCountingTestApp();
  team = await createTeam(t.app, t.database.db);
});
afterAll(() => t.close());

const PERIODS = 120;
const ROWS = 3000;
const label = (m: number) => `M${m} ${2026 + Math.floor(m / 12)}`;

/** Monthly periods; indicator rows of a code alone under a `target …` column per period; a value a row. */
function workbook(rows: number): Sheets {
  const periods: Cell[][] = [['label', 'start_date', 'end_date']];
  for (let m = 0; m < PERIODS; m++) {
    const month = `${2026 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
    periods.push([label(m), `${month}-01`, `${month}-28`]);
  }
  const header = ['code', 'name', 'unit', 'aggregation'];
  const targets = Array.from({ length: PERIODS }, (_, m) => `target ${label(m)}`);
  const indicatorRows: Cell[][] = [
    [...header, ...targets, 'target M0 2030'],
    ['NEW_1', 'Latrines built', 'latrines', 'sum', 10, ...Array<Cell>(PERIODS - 1).fill(null), null],
  ];
  const values: Cell[][] = [['indicator_code', 'period', 'value', 'female']];
  for (let i = 0; i < rows; i++) {
    indicatorRows.push([`W${i}`]);
    values.push([`W${i}`, label(0), 2, 1]);
  }
  return { periods, indicators: indicatorRows, values };
}

describe('a set-up workbook of many periods and rows', () => {
  it('is checked in statements that do not grow with its rows', async () => {
    const org = team.org.id;
    // The organization's indicators of the rows' codes, each with a disaggregation: written directly.
    const existing = await t.database.db
      .insert(indicators)
      .values(
        Array.from({ length: ROWS }, (_, i) => ({
          orgId: org,
          code: `W${i}`,
          name: `Water point ${i}`,
          unit: 'points',
          aggregationMethod: 'sum' as const,
        })),
      )
      .returning({ id: indicators.id });
    await t.database.db.insert(disaggregations).values(
      existing.map(({ id }) => ({
        orgId: org,
        indicatorId: id,
        name: 'Sex',
        categories: ['female', 'male'],
      })),
    );
    const { id: projectId } = await createProject(t.database.db, org);
    const dryRun = async (rows: number) => {
      const bytes = await xlsx(workbook(rows));
      let res: Awaited<ReturnType<typeof importSetup>> | undefined;
      const statements = await t.during(async () => {
        // The first refused row of the indicators sheet: after the periods and the new indicator.
        const query = `?limit=1&page=${PERIODS + 2}`;
        res = await importSetup(t.app, org, projectId, bytes, { as: team.officer, query });
      });
      return { res: res!, statements };
    };

    const few = await dryRun(10);
    const many = await dryRun(ROWS);
    expect(many.res.status).toBe(200);
    expect(many.res.body).toMatchObject({
      dryRun: true,
      applied: false,
      summary: { created: PERIODS + 1, updated: 0, unchanged: 0, refused: 2 * ROWS },
      meta: { totalRows: PERIODS + 1 + 2 * ROWS },
    });
    expect(many.res.body.rows).toEqual([
      {
        sheet: 'indicators',
        row: 3,
        cell: 'indicators!B3',
        action: 'refused',
        messages: ['name should not be empty', 'unit should not be empty'],
      },
    ]);
    // The periods' own writes, and a handful of reads for the indicators and values sheets, whatever their rows.
    expect(many.statements).toBe(few.statements);
    expect(many.statements).toBeLessThan(PERIODS * 8);
  });
});
