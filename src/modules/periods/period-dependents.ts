import type { Db } from '../../db/client.js';

/**
 * Whether a module above periods holds submissions in the period (indicator reports, counted form
 * submissions). The foreign keys refuse the delete anyway; asking first keeps the contract's message
 * the same whatever order PostgreSQL checks the keys in: "has submissions" before "used by a form".
 * Those modules answer, and `buildApp` hands the answers in, so periods imports none of them.
 */
export type SubmissionsInPeriod = (db: Db, orgId: string, reportingPeriodId: string) => Promise<boolean>;
