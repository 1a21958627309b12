/** Which failures of a read on the replica are the replica's (replica.ts), and what the log may say of them. */
import { pgErrorCode } from './errors.js';
import { driverErrorPool, isDatabaseUnavailable, poolBusy, unavailableCause } from './outage.js';

/** The name the replica's pool marks its errors with (outage.ts): only they can say the replica failed. */
export const REPLICA_POOL = 'replica';

/** pg's words for a query that outlived its `query_timeout`. */
const QUERY_TIMEOUT = 'Query read timeout';

function timedOut(error: unknown): boolean {
  for (let e = error as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.message === QUERY_TIMEOUT) return true;
  }
  return false;
}

/**
 * Whether a failed read owes it to the replica. Only errors of the replica's own pool count: a check the
 * read makes on the primary fails on its own account. `busy` (no free replica connection within the
 * timeout: this read only), `down` (out of reach, as the primary's outages are told, or no answer within
 * the query timeout), `conflict` (40001: on a standby, a query cancelled so that replay can go on), or
 * null (the read's own).
 */
export function replicaFailure(error: unknown): 'down' | 'busy' | 'conflict' | null {
  if (driverErrorPool(error) !== REPLICA_POOL) return null;
  if (poolBusy(error, REPLICA_POOL)) return 'busy';
  if (isDatabaseUnavailable(error, REPLICA_POOL) || timedOut(error)) return 'down';
  return pgErrorCode(error).code === '40001' ? 'conflict' : null;
}

/** What the log may say of a replica's failure: the driver's own words (a query's may hold personal data). */
export function failureReason(error: unknown): string {
  return unavailableCause(error, REPLICA_POOL)?.reason ?? (timedOut(error) ? QUERY_TIMEOUT : 'query failed');
}
