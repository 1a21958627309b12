import { describe, expect, it } from 'vitest';
import { amountOf, budgetYears, centsOf } from './budget-years.js';

const sumOf = (years: { amount: string }[]) => years.reduce((sum, year) => sum + centsOf(year.amount), 0n);

describe('budget years', () => {
  it('reads and writes amounts in exact cents', () => {
    expect([centsOf('1500.55'), centsOf('1500.5'), centsOf('7'), centsOf('-0.05')]).toEqual([
      150055n,
      150050n,
      700n,
      -5n,
    ]);
    expect([amountOf(150055n), amountOf(5n), amountOf(0n), amountOf(-105n)]).toEqual([
      '1500.55',
      '0.05',
      '0.00',
      '-1.05',
    ]);
    // Beyond 2^53 cents: still exact.
    expect(amountOf(centsOf('123456789012345678.91'))).toBe('123456789012345678.91');
  });

  it('spreads the total over the project years in proportion to their days, summing exactly', () => {
    // 2024 is a leap year: 366 of 547 days.
    expect(budgetYears('2024-01-01', '2025-06-30', '1500.55')).toEqual([
      { startDate: '2024-01-01', endDate: '2024-12-31', amount: '1004.02' },
      { startDate: '2025-01-01', endDate: '2025-06-30', amount: '496.53' },
    ]);
    const years = budgetYears('2026-03-15', '2029-03-14', '1000000.01');
    expect(years.map((year) => [year.startDate, year.endDate])).toEqual([
      ['2026-03-15', '2027-03-14'],
      ['2027-03-15', '2028-03-14'],
      ['2028-03-15', '2029-03-14'],
    ]);
    expect(sumOf(years)).toBe(100000001n);
  });

  it('gives one budget for a project of a year or less, and none when nothing is planned', () => {
    expect(budgetYears('2026-01-01', '2026-01-01', '10')).toEqual([
      { startDate: '2026-01-01', endDate: '2026-01-01', amount: '10.00' },
    ]);
    expect(budgetYears('2026-01-01', '2026-12-31', '0')).toEqual([]);
    expect(budgetYears('2026-01-01', '2026-12-31', '0.00')).toEqual([]);
  });

  it('keeps years contiguous from 29 February, never longer than a year', () => {
    const years = budgetYears('2024-02-29', '2026-12-31', '3');
    expect(years.map((year) => [year.startDate, year.endDate])).toEqual([
      ['2024-02-29', '2025-02-28'],
      ['2025-03-01', '2026-02-28'],
      ['2026-03-01', '2026-12-31'],
    ]);
    expect(sumOf(years)).toBe(300n);
  });
});
