import { literalHostRange } from './safe-request.js';
import { singleWrite, transaction, type Db } from '../../db/client.js';
import { badRequest, conflict, invalidTransition, notFound } from '../../errors/catalogue.js';
import { paginate, type PageRequest } from '../../http/schemas/pagination.js';
import type { Clock } from '../../lib/clock.js';
import type { Keyring } from '../../lib/sealed-values.js';
import { eventBody } from './events.js';
import {
  countEndpointDeliveries,
  countEndpoints,
  deleteEndpoint,
  failEndpointDeliveries,
  findEndpoint,
  findEndpointDelivery,
  insertDelivery,
  insertEndpoint,
  insertEvent,
  listEndpointDeliveries,
  listEndpoints,
  lockEndpointCount,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
  type EndpointValues,
} from './webhooks.repo.js';
import type {
  DeliveryStatus,
  NewWebhookEndpoint,
  WebhookDeliveryView,
  WebhookEndpointChanges,
  WebhookEndpointView,
} from './webhooks.schemas.js';
import { newSigningSecret, ROTATION_OVERLAP_MS, sealSecret } from './secrets.js';

/** Endpoints one organization may have: each event is signed and sent once per endpoint. */
export const MAX_ENDPOINTS = 20;
export const TOO_MANY_ENDPOINTS = `An organization can have at most ${MAX_ENDPOINTS} webhook endpoints`;
export const ENDPOINT_NOT_ACTIVE = 'Webhook endpoint is not active';
/** The `error` of the deliveries still pending when their endpoint is turned off. */

const ENDPOINT = 'Webhook endpoint';
const DELIVERY = 'Webhook delivery';

export interface WebhookSettings {
  piiKeyring: Keyring;
  /** WEBHOOK_ALLOW_PRIVATE: private and loopback targets, and http to loopback, are accepted. */
  webhookAllowPrivate: boolean;
}

/**
 * Why `url` cannot be an endpoint's address, or null when it can. What can be told from the URL alone;
 * the worker still checks every address the host resolves to at each delivery.
 */
export function urlProblem(url: string, allowPrivate: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be a valid URL';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'url must not contain a user name or password';
  // The URL parser has already written every IPv4 form (`0x7f.1`, `2130706433`) as four decimals.
  const range = literalHostRange(parsed.hostname);
  if (parsed.protocol === 'http:' && allowPrivate) {
    if (range !== 'loopback') return 'url must use https, or http to a loopback address';
    return null;
  }
  if (parsed.protocol !== 'https:') {
    return allowPrivate ? 'url must use https, or http to a loopback address' : 'url must use https';
  }
  if (!allowPrivate && range !== null && range !== 'unicast') {
    return 'url must not point to a private, loopback or otherwise special address';
  }
  return null;
}

/** The endpoint as the API shows it: no secret, and the rotation's overlap only while it lasts. */
function present(row: EndpointRow, now: Date): WebhookEndpointView {
  const overlapping = row.previousSecretUntil !== null && row.previousSecretUntil > now;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    active: row.active,
    disabledReason: row.disabledReason === 'failing' ? 'failing' : null,
    disabledAt: row.disabledAt,
    failingSince: row.failingSince,
    secretRotatedUntil: overlapping ? row.previousSecretUntil : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A delivery waits for its next attempt only while pending. */
const presentDelivery = (row: DeliveryRow): WebhookDeliveryView => ({
  ...row,
  nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
});

const description = (value: string | null | undefined) => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};

/**
 * An organization's webhook endpoints: their addresses and subscriptions, their signing secrets (sealed
 * at rest, shown once), and the record of what was delivered to them.
 */
export class WebhookService {
  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    private readonly clock: Clock,
    /** Wakes the delivery worker after a commit that queued a delivery. */
    private readonly queued: () => void,
  ) {}

  list(orgId: string, query: PageRequest) {
    const now = this.clock.now();
    return paginate(query, {
      count: () => countEndpoints(this.db, orgId),
      list: async (window) => (await listEndpoints(this.db, orgId, window)).map((row) => present(row, now)),
    });
  }

  async get(orgId: string, id: string): Promise<WebhookEndpointView> {
    const row = await findEndpoint(this.db, orgId, id);
    if (!row) throw notFound(ENDPOINT);
    return present(row, this.clock.now());
  }

  async create(orgId: string, input: NewWebhookEndpoint): Promise<WebhookEndpointView & { secret: string }> {
    this.checkUrl(input.url);
    const secret = newSigningSecret();
    const now = this.clock.now();
    const active = input.active ?? true;
    const values: EndpointValues = {
      url: input.url,
      events: input.events,
      description: description(input.description),
      active,
      secret: sealSecret(this.settings.piiKeyring, secret),
      disabledAt: active ? null : now,
    };
    const row = await transaction(this.db, async (tx) => {
      await lockEndpointCount(tx, orgId);
      if ((await countEndpoints(tx, orgId)) >= MAX_ENDPOINTS) throw conflict(TOO_MANY_ENDPOINTS);
      return insertEndpoint(tx, orgId, values);
    });
    return { ...present(row, now), secret };
  }

  /**
   * Turning an endpoint off fails its pending deliveries in the same transaction; turning a disabled one
   * on clears why and since when it was off, and since when it was failing; so does a new url.
   */
  async update(orgId: string, id: string, input: WebhookEndpointChanges): Promise<WebhookEndpointView> {
    if (input.url !== undefined) this.checkUrl(input.url);
    const now = this.clock.now();
    const row = await transaction(this.db, async (tx) => {
      const current = await findEndpoint(tx, orgId, id, 'update');
      if (!current) throw notFound(ENDPOINT);
      const changes: Partial<EndpointValues> = {};
      // Another address is another receiver: its failures are counted afresh.
      if (input.url !== undefined && input.url !== current.url)
        Object.assign(changes, { url: input.url, failingSince: null });
      if (input.events !== undefined) changes.events = input.events;
      if (input.description !== undefined) changes.description = description(input.description);
      if (input.active === true && !current.active) {
        Object.assign(changes, { active: true, disabledReason: null, disabledAt: null, failingSince: null });
      }
      if (input.active === false && current.active) {
        Object.assign(changes, { active: false, disabledAt: now });
        await failEndpointDeliveries(tx, orgId, id);
      }
      if (Object.keys(changes).length === 0) return current;
      const updated = await updateEndpoint(tx, orgId, id, changes);
      if (!updated) throw notFound(ENDPOINT);
      return updated;
    });
    return present(row, now);
  }

  async remove(orgId: string, id: string): Promise<void> {
    if (!(await deleteEndpoint(this.db, orgId, id))) throw notFound(ENDPOINT);
  }

  /** A new secret; the one it replaces keeps signing beside it for ROTATION_OVERLAP_MS. */
  async rotateSecret(orgId: string, id: string): Promise<WebhookEndpointView & { secret: string }> {
    const secret = newSigningSecret();
    const now = this.clock.now();
    const sealed = sealSecret(this.settings.piiKeyring, secret);
    const row = await singleWrite(this.db, (tx) =>
      rotateEndpointSecret(tx, orgId, id, sealed, new Date(now.getTime() + ROTATION_OVERLAP_MS)),
    );
    if (!row) throw notFound(ENDPOINT);
    return { ...present(row, now), secret };
  }

  async deliveries(orgId: string, id: string, query: PageRequest & { status?: DeliveryStatus }) {
    if (!(await findEndpoint(this.db, orgId, id))) throw notFound(ENDPOINT);
    return paginate(query, {
      count: () => countEndpointDeliveries(this.db, orgId, id, query.status),
      list: async (window) =>
        (await listEndpointDeliveries(this.db, orgId, id, query.status, window)).map(presentDelivery),
    });
  }

  /** The same event again, as a new delivery due now; the one it repeats keeps its record. */
  async redeliver(orgId: string, id: string, deliveryId: string): Promise<WebhookDeliveryView> {
    const now = this.clock.now();
    const delivery = await transaction(this.db, async (tx) => {
      const endpoint = await findEndpoint(tx, orgId, id, 'share');
      if (!endpoint) throw notFound(ENDPOINT);
      const earlier = await findEndpointDelivery(tx, orgId, id, deliveryId);
      if (!earlier) throw notFound(DELIVERY);
      if (!endpoint.active) throw invalidTransition(ENDPOINT_NOT_ACTIVE);
      return insertDelivery(tx, orgId, {
        endpointId: id,
        event: { id: earlier.eventId, type: earlier.eventType },
        at: now,
      });
    });
    this.queued();
    return presentDelivery(delivery);
  }

  /** A `ping` event for this endpoint alone, due now. */
  async ping(orgId: string, id: string): Promise<WebhookDeliveryView> {
    const now = this.clock.now();
    const delivery = await transaction(this.db, async (tx) => {
      const endpoint = await findEndpoint(tx, orgId, id, 'share');
      if (!endpoint) throw notFound(ENDPOINT);
      if (!endpoint.active) throw invalidTransition(ENDPOINT_NOT_ACTIVE);
      const event = await insertEvent(tx, orgId, {
        type: 'ping',
        body: eventBody('ping', now, { webhookId: id }),
        at: now,
      });
      return insertDelivery(tx, orgId, { endpointId: id, event, at: now });
    });
    this.queued();
    return presentDelivery(delivery);
  }

  private checkUrl(url: string): void {
    const problem = urlProblem(url, this.settings.webhookAllowPrivate);
    if (problem) throw badRequest(problem);
  }
}
