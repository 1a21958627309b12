import { describe, expect, it } from 'vitest';
import { findOutlier, type HistorySource, type QualityChecks } from '../../lib/outliers.js';
import type { ReportFlag } from '../quality/index.js';
import { flaggingRules, qualityNotesOf, quotesOtherProjects, type FlaggedValue } from './quality-notes.js';

const Q1 = { id: '00000000-0000-4000-8000-000000000001', label: 'Q1 2026' };
const Q2 = { id: '00000000-0000-4000-8000-000000000002', label: 'Q2 2026' };
const RULE = 'rule-trained-within-registered';

const ruleFlag = (justification: string | null = null): ReportFlag => ({
  kind: 'rule',
  rule: RULE,
  message: 'Trained within registered: TRAINED (1,200) must be <= REGISTERED (100)',
  importance: 'high',
  instruction: 'Check the attendance sheets',
  justification,
});
const outlierFlag = (message: string, justification: string | null = null): ReportFlag => ({
  kind: 'outlier',
  method: 'modified_z',
  message,
  importance: 'medium',
  justification,
});
const OWN_HISTORY = '12,000 is 10x the median of the last 8 periods (1,180); modified z = 41';

const notesOf = (values: FlaggedValue[], shown = ['trained', 'registered'], periods = [Q1, Q2]) =>
  qualityNotesOf({
    values,
    shownIndicators: new Set(shown),
    ruleInputs: new Map([[RULE, ['trained', 'registered']]]),
    periods,
  });

describe('the quality notes of a report', () => {
  it('keeps message and justification of the flags of included values, oldest period first, without the instruction', () => {
    const notes = notesOf([
      { indicatorId: 'trained', periodId: Q2.id, flags: [outlierFlag(OWN_HISTORY, 'A new district joined')] },
      { indicatorId: 'trained', periodId: Q1.id, flags: [ruleFlag('Late registrations')] },
      { indicatorId: 'registered', periodId: Q1.id, flags: [ruleFlag('Late registrations')] },
      { indicatorId: 'registered', periodId: Q2.id, flags: [] },
    ]);
    const rule = {
      periodId: Q1.id,
      period: 'Q1 2026',
      kind: 'rule',
      importance: 'high',
      message: 'Trained within registered: TRAINED (1,200) must be <= REGISTERED (100)',
      justification: 'Late registrations',
    };
    expect(notes.get('trained')).toEqual([
      rule,
      {
        periodId: Q2.id,
        period: 'Q2 2026',
        kind: 'outlier',
        importance: 'medium',
        // A score's median is of earlier values, drafts among them: withheld.
        message: null,
        justification: 'A new district joined',
      },
    ]);
    expect(notes.get('registered')).toEqual([rule]);
    expect([...notes.keys()].sort()).toEqual(['registered', 'trained']);
  });

  it('withholds a rule message quoting a value the report does not include, or an indicator it does not show', () => {
    // REGISTERED of Q1 is a draft: not among the included values.
    const draftInput = notesOf([{ indicatorId: 'trained', periodId: Q1.id, flags: [ruleFlag('Checked')] }]);
    expect(draftInput.get('trained')).toEqual([
      expect.objectContaining({ message: null, justification: 'Checked' }),
    ]);
    // REGISTERED is included but not linked to the project: the report has no entry for it.
    const unlinked = notesOf(
      [
        { indicatorId: 'trained', periodId: Q1.id, flags: [ruleFlag()] },
        { indicatorId: 'registered', periodId: Q1.id, flags: [ruleFlag()] },
      ],
      ['trained'],
    );
    expect(unlinked.get('trained')).toEqual([expect.objectContaining({ message: null })]);
    expect(unlinked.has('registered')).toBe(false);
    // A rule whose inputs are unknown (gone since): nothing says what its message quotes.
    const unknown = qualityNotesOf({
      values: [{ indicatorId: 'trained', periodId: Q1.id, flags: [ruleFlag()] }],
      shownIndicators: new Set(['trained']),
      ruleInputs: new Map(),
      periods: [Q1],
    });
    expect(unknown.get('trained')).toEqual([expect.objectContaining({ kind: 'rule', message: null })]);
  });

  it('withholds every message quoting a value whose personal amounts are gone', () => {
    const notes = notesOf([
      { indicatorId: 'trained', periodId: Q1.id, flags: [ruleFlag()] },
      { indicatorId: 'registered', periodId: Q1.id, flags: [ruleFlag()], personalAmountsGone: true },
      {
        indicatorId: 'registered',
        periodId: Q2.id,
        flags: [outlierFlag(OWN_HISTORY)],
        personalAmountsGone: true,
      },
    ]);
    expect(notes.get('trained')!.map((note) => note.message)).toEqual([null]);
    expect(notes.get('registered')!.map((note) => note.message)).toEqual([null, null]);
  });

  it("keeps a bounds message, and withholds a score's (its median or mean is of values the report leaves out)", () => {
    const bounded = findOutlier(12_000, [], { method: 'min_max', max: 5000 })!;
    const notes = notesOf([
      {
        indicatorId: 'trained',
        periodId: Q1.id,
        flags: [{ ...outlierFlag(bounded.message), method: 'min_max' }],
      },
      { indicatorId: 'registered', periodId: Q1.id, flags: [outlierFlag(OWN_HISTORY)] },
    ]);
    expect(notes.get('trained')!.map((note) => note.message)).toEqual([
      '12,000 is above the maximum set for this indicator (5,000)',
    ]);
    expect(notes.get('registered')!.map((note) => note.message)).toEqual([null]);
  });

  it('withholds a rule message quoting a cell, unless the report has that one period', () => {
    const cell = {
      ...ruleFlag(),
      message: 'Women in groups: TRAINED[female] (1) must be >= 0.6 * TRAINED (10)',
    };
    const values = [
      { indicatorId: 'trained', periodId: Q1.id, flags: [cell] },
      { indicatorId: 'registered', periodId: Q1.id },
    ];
    expect(
      notesOf(values)
        .get('trained')!
        .map((note) => note.message),
    ).toEqual([null]);
    expect(
      notesOf(values, undefined, [Q1])
        .get('trained')!
        .map((note) => note.message),
    ).toEqual([cell.message]);
  });

  it("withholds an outlier's message comparing with the organization's other projects", () => {
    const elsewhere = findOutlier(12_000, [1000, 1358, 1100, 1400, 1002], null, 'other_projects')!.message;
    const notes = notesOf([
      { indicatorId: 'trained', periodId: Q1.id, flags: [outlierFlag(elsewhere, 'Verified')] },
    ]);
    expect(notes.get('trained')).toEqual([
      expect.objectContaining({ kind: 'outlier', message: null, justification: 'Verified' }),
    ]);
  });

  it('leaves out values of periods the report does not include, and values without flags', () => {
    const notes = notesOf([
      { indicatorId: 'trained', periodId: 'another-period', flags: [outlierFlag(OWN_HISTORY)] },
      { indicatorId: 'registered', periodId: Q1.id },
    ]);
    expect(notes.size).toBe(0);
  });

  it('names the rules flagging the values once each', () => {
    expect(
      flaggingRules([
        { indicatorId: 'a', periodId: Q1.id, flags: [ruleFlag(), outlierFlag(OWN_HISTORY)] },
        { indicatorId: 'b', periodId: Q1.id, flags: [ruleFlag()] },
        { indicatorId: 'c', periodId: Q1.id },
      ]),
    ).toEqual([RULE]);
  });
});

describe('quotesOtherProjects', () => {
  const history = [1000, 1358, 1100, 1400, 1002, 1260, 900, 1500];
  const cases: [QualityChecks | null, number[]][] = [
    [null, history],
    [{ method: 'z' }, history],
    [null, [100, 100, 100, 100]],
  ];
  it.each(cases)('knows the messages of src/lib/outliers.ts by their history (%j)', (checks, past) => {
    const message = (source: HistorySource) => findOutlier(12_000, past, checks, source)!.message;
    expect(quotesOtherProjects(message('other_projects'))).toBe(true);
    expect(quotesOtherProjects(message('project'))).toBe(false);
  });

  it('does not take bounds for other projects', () => {
    const bounded = findOutlier(12_000, [], { method: 'min_max', max: 5000 })!.message;
    expect(bounded).toBe('12,000 is above the maximum set for this indicator (5,000)');
    expect(quotesOtherProjects(bounded)).toBe(false);
  });
});
