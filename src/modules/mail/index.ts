/** What other modules and the entry points may use of the mail module (docs/architecture.md, "Module order"). */
export type { OutgoingEmail } from './mail.repo.js';
export { queueEmail } from './mail.service.js';
export { createMailTransport, type SendEmail } from './mail.transport.js';
export { outboxDepth } from './outbox-depth.js';
export { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';
