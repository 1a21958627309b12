/** What other modules and the entry points may use of the webhooks module (docs/architecture.md, "Module order"). */
export { webhookDeliveryDepth } from './delivery-depth.js';
export { WebhookWorker, type WebhookWorkerOptions } from './delivery-worker.js';
export { asReturned, queueWebhookEvent } from './events.js';
export { purgeWebhookHistory } from './retention.js';
export { resealWebhookSecrets } from './secret-sealing.js';
export { webhookRoutes } from './webhooks.routes.js';
export { WebhookService } from './webhooks.service.js';
