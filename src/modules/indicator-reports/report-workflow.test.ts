import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/catalogue.js';
import { checkEditable, checkMove, EDITABLE, movableTo } from './report-workflow.js';

const refusal = (check: () => void) => {
  try {
    check();
  } catch (err) {
    return err as AppError;
  }
  return undefined;
};

describe('indicator report workflow (DECISIONS.md section 7)', () => {
  it('submits draft or rejected reports and reviews submitted ones; nothing leaves approved', () => {
    expect(EDITABLE).toEqual(['draft', 'rejected']);
    expect(movableTo('submitted')).toEqual(['draft', 'rejected']);
    expect(movableTo('approved')).toEqual(['submitted']);
    expect(movableTo('rejected')).toEqual(['submitted']);
    expect(movableTo('draft')).toEqual([]);
  });

  it('refuses a move with 409 invalid_transition, naming the statuses it may come from', () => {
    expect(refusal(() => checkMove('rejected', 'submitted'))).toBeUndefined();
    const again = refusal(() => checkMove('submitted', 'submitted'));
    expect(again).toMatchObject({ statusCode: 409, code: 'invalid_transition' });
    expect(again?.message).toBe(
      'Only draft or rejected indicator reports can be submitted; this one is submitted',
    );
    expect(refusal(() => checkMove('approved', 'rejected'))?.message).toBe(
      'Only submitted indicator reports can be rejected; this one is approved',
    );
  });

  it('refuses changes to a report out of the reporter’s hands', () => {
    expect(refusal(() => checkEditable('draft'))).toBeUndefined();
    expect(refusal(() => checkEditable('approved'))?.message).toBe(
      'Indicator report can only be edited while draft or rejected; this one is approved',
    );
    expect(refusal(() => checkEditable('submitted', 'pre-filled'))?.message).toBe(
      'Only draft or rejected indicator reports can be pre-filled; this one is submitted',
    );
  });
});
