import { constraintRefusal } from '../db/errors.js';
import { type AppError, duplicate, hasDependents, notFound } from './catalogue.js';

/**
 * Database refusals in the contract's words, in one place (supabase/storage's `DBError`, central-backend's
 * one translation). A service checks, then writes; when a concurrent request wins in between, or when the
 * constraint is the only check, the constraint refuses and one of the functions below says what that
 * means. No service compares SQLSTATE codes (test/error-catalogue.test.ts).
 */

/**
 * Foreign keys whose refusal of a write names what went missing better than the write's own `gone`: an
 * activity's output node is not its project.
 */
const POINTS_AT: Readonly<Record<string, () => AppError>> = {
  activities_output_id_result_nodes_id_fk: () => notFound('Result node'),
};

/**
 * Deletes that the database refuses because other rows still point at the one deleted (foreign keys
 * without cascade), by constraint name and what was being deleted: the contract's 409 messages
 * (SPEC.md, "Refusals"). An owner does not look for its dependents before deleting (that would make
 * it import them); it deletes, and the foreign key of the dependent refuses.
 */
const REFERENCED_BY: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  indicator_reports_project_indicator_fk: {
    Indicator: 'Indicator has indicator reports',
    'Project indicator': 'Indicator has indicator reports in this project',
  },
  forms_project_indicator_fk: {
    Indicator: 'Indicator is used by a form',
    'Project indicator': 'Indicator is used by a form of this project',
  },
  indicator_reports_reporting_period_fk: { 'Reporting period': 'Reporting period has submissions' },
  form_submissions_reporting_period_id_reporting_periods_id_fk: {
    'Reporting period': 'Reporting period has submissions',
  },
  forms_reporting_period_fk: { 'Reporting period': 'Reporting period is used by a form' },
};

/** Every constraint the tables above name: test/error-catalogue.test.ts finds each in the migrated schema. */
export const NAMED_CONSTRAINTS: readonly string[] = [
  ...Object.keys(POINTS_AT),
  ...Object.keys(REFERENCED_BY),
];

const REFERENCED_ELSEWHERE = 'The record is referenced by other data';
const ALREADY_EXISTS = 'The record already exists';

/** What a refused write means to its client. */
export interface WriteRefusals {
  /** A unique index refused: the message of the 409 `duplicate`. */
  taken?: string;
  /** A foreign key refused: what the row points at went away (unless POINTS_AT names the constraint). */
  gone?: () => AppError;
}

/**
 * For a write's `.catch`: a unique or foreign-key refusal becomes the error `refusals` gives for it; any
 * other error, or a refusal it says nothing of, passes through (to `refusalOf` in the error handler).
 */
export function refusedWrite(refusals: WriteRefusals): (err: unknown) => never {
  return (err) => {
    const refusal = constraintRefusal(err);
    if (refusal?.kind === 'unique' && refusals.taken !== undefined) throw duplicate(refusals.taken);
    if (refusal?.kind === 'foreign-key' && refusals.gone) {
      const pointsAt = refusal.constraint === undefined ? undefined : POINTS_AT[refusal.constraint];
      throw (pointsAt ?? refusals.gone)();
    }
    throw err;
  };
}

/** For a write whose only refusal to translate is a unique index's (a race lost after the service's own check). */
export const refusedDuplicate = (message: string) => refusedWrite({ taken: message });

/**
 * For a delete's `.catch`: a foreign key's refusal becomes its 409 `has_dependents` from REFERENCED_BY (or
 * the generic one); any other error passes through. `what` names the deleted resource as `notFound` does.
 */
export function refusedDelete(what: string): (err: unknown) => never {
  return (err) => {
    const refusal = constraintRefusal(err);
    if (refusal?.kind !== 'foreign-key') throw err;
    const message = refusal.constraint === undefined ? undefined : REFERENCED_BY[refusal.constraint]?.[what];
    throw hasDependents(message ?? REFERENCED_ELSEWHERE);
  };
}

/**
 * A refusal no service translated (a race between two requests past every check): a 409 all the same,
 * never a 500. Null for any other error, check and exclusion refusals included (they stay failures).
 */
export function refusalOf(err: unknown): AppError | null {
  const kind = constraintRefusal(err)?.kind;
  if (kind === 'unique') return duplicate(ALREADY_EXISTS);
  if (kind === 'foreign-key') return hasDependents(REFERENCED_ELSEWHERE);
  return null;
}
