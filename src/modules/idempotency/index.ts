/** What other modules and the entry points may use of the idempotency module (README, "Module order"). */
export { idempotencyKeys, purgeExpiredIdempotencyKeys } from './idempotency.repo.js';
