/** What other modules and the entry points may use of the idempotency module (docs/architecture.md, "Module order"). */
export { idempotencyKeys, purgeExpiredIdempotencyKeys } from './idempotency.repo.js';
