import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'drizzle-orm';
import { afterCommit } from '../../db/after-commit.js';
import { rowsOf, type Db } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.tables.js';

/** What an endpoint may subscribe to; `ping` is sent only by POST .../webhooks/:id/ping. */
export const WEBHOOK_EVENT_TYPES = [
  'indicator_report.submitted',
  'indicator_report.approved',
  'indicator_report.rejected',
  'report.published',
  'form_submission.created',
  'participant.registered',
  'period.locked',
  'period.unlocked',
  'member.invited',
  'member.joined',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number] | 'ping';

/** The body every endpoint receives, as the Standard Webhooks specification shapes it. */
export function eventBody(type: WebhookEventType, at: Date, data: object): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * A resource as the API answers it: what its response schema does not name (internal columns) is left
 * out, dates become ISO strings. Personal data is never handed here (callers pass ids for people).
 */
export function asReturned<T extends TSchema>(schema: T, value: object): Record<string, unknown> {
  return Value.Clean(schema, JSON.parse(JSON.stringify(value))) as Record<string, unknown>;
}

/**
 * Queues an event in the caller's transaction: one delivery per active endpoint of the organization that
 * subscribes to its type, so it leaves exactly when the change commits, and nothing is written when no
 * endpoint listens. One statement, whatever the number of endpoints. When a delivery was queued,
 * `wake` (the delivery worker's) runs once the transaction commits: it goes out now, not at the next poll.
 */
export async function queueWebhookEvent(
  tx: Db,
  event: { orgId: string; type: Exclude<WebhookEventType, 'ping'>; data: object; at?: Date },
  wake: () => void,
): Promise<void> {
  const at = event.at ?? new Date();
  const eventId = newId();
  const queued = await tx.execute(sql`
    WITH targets AS (
      SELECT id FROM ${webhookEndpoints}
      WHERE org_id = ${event.orgId} AND active AND ${event.type} = ANY(events)
      -- An endpoint being deleted or turned off at this moment is waited for and then left out, rather
      -- than failing this change on its foreign key or leaving it a delivery it should not get.
      FOR SHARE
    ), event AS (
      INSERT INTO ${webhookEvents} (id, org_id, type, body, created_at)
      SELECT ${eventId}, ${event.orgId}, ${event.type}, ${eventBody(event.type, at, event.data)}, ${at.toISOString()}
      WHERE EXISTS (SELECT 1 FROM targets)
      RETURNING id
    )
    INSERT INTO ${webhookDeliveries} (id, org_id, endpoint_id, event_id, next_attempt_at, created_at)
    SELECT gen_random_uuid(), ${event.orgId}, targets.id, event.id, ${at.toISOString()}, ${at.toISOString()}
    FROM targets, event
    RETURNING 1 AS queued`);
  if (rowsOf(queued).length > 0) afterCommit(wake);
}
