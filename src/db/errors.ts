/** The Postgres error code behind an error; Drizzle wraps driver errors and keeps them as `cause`. */
export function pgErrorCode(err: unknown): { code?: string; constraint?: string } {
  for (let e = err as { code?: unknown; constraint?: unknown; cause?: unknown } | undefined; e;) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      return { code: e.code, constraint: typeof e.constraint === 'string' ? e.constraint : undefined };
    }
    e = e.cause as typeof e;
  }
  return {};
}

/**
 * A constraint's refusal (SQLSTATE class 23), by kind. The codes are named here only: the services hear
 * of refusals through src/errors/refusals.ts, in the contract's words.
 */
const REFUSALS = {
  '23505': 'unique',
  '23503': 'foreign-key',
  '23514': 'check',
  '23P01': 'exclusion',
} as const satisfies Record<string, string>;

export type RefusalKind = (typeof REFUSALS)[keyof typeof REFUSALS];

export interface ConstraintRefusal {
  kind: RefusalKind;
  /** The constraint's name as in src/db/migrations (PGlite and node-postgres both give it). */
  constraint?: string;
}

/** The constraint that refused a statement, or null for any other error. */
export function constraintRefusal(err: unknown): ConstraintRefusal | null {
  const { code, constraint } = pgErrorCode(err);
  const kind = code === undefined ? undefined : REFUSALS[code as keyof typeof REFUSALS];
  return kind ? { kind, constraint } : null;
}

/** A number past its column's type (22003, numeric_value_out_of_range), e.g. a sum of doubles that overflows. */
export const isNumericOverflow = (err: unknown): boolean => pgErrorCode(err).code === '22003';
