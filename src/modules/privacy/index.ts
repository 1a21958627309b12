/** What other modules and the entry points may use of the privacy module (docs/architecture.md, "Module order"). */
export {
  ALREADY_ERASED,
  type AuditSource,
  auditSourceOf,
  recordAudit,
  recordPersonalRead,
  serviceSource,
} from './audit-log.js';
export { type AuditEntryRow, listAuditEntries, purgeAuditEntries } from './audit-log.repo.js';
export { auditLogRoutes } from './audit-log.routes.js';
export { AuditEntry } from './audit-log.schemas.js';
export {
  checkSealingKey,
  keyringHolds,
  recordSealingKey,
  sealedUnderKeyId,
  sealingKeyMismatch,
  SealingKeyMismatch,
} from './sealing-keys.js';
