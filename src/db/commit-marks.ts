import { AsyncLocalStorage } from 'node:async_hooks';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/** Drizzle's query builder, as `Db` in client.ts (which imports this file). */
type Db = PgDatabase<PgQueryResultHKT>;

/**
 * A write that must commit together with the request's own writes: the `Idempotency-Key` row of a keyed
 * request is marked `committed` inside the transaction that does the request's work, so that a committed
 * write always leaves its key unable to run again, and a failed one never does (issue 36, finding 3).
 */
export interface CommitMark {
  /** Written inside every outermost transaction the request opens, just before it commits. */
  mark(tx: Db): Promise<void>;
  /** Set once one of those transactions committed. */
  committed: boolean;
  /**
   * Cleared once the request's answer is on its way: a timer or a worker woken from inside the request
   * keeps its async context, and must never write the mark of a request long answered.
   */
  active: boolean;
}

const marks = new AsyncLocalStorage<CommitMark | null>();

/** Runs `work` (and everything it starts) with `mark` written into its transactions. */
export function withCommitMark<T>(mark: CommitMark, work: () => T): T {
  return marks.run(mark, work);
}

/** The mark of the running request, if it has one; null inside a transaction that already carries it. */
export function currentCommitMark(): CommitMark | null {
  const mark = marks.getStore();
  return mark?.active ? mark : null;
}

/**
 * `work` bound to run outside any request's mark, wherever it is called from: what a request wakes (the
 * outbox and webhook workers) schedules its timers in the context of the call, and would carry the mark.
 */
export const outsideCommitMarks =
  <A extends unknown[], R>(work: (...args: A) => R) =>
  (...args: A): R =>
    marks.run(null, () => work(...args));

/** Runs `work` where no mark applies: the transaction that carries one, and what it nests. */
export const withoutCommitMark = <T>(work: () => T): T => marks.run(null, work);
