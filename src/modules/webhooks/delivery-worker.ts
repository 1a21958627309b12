import type { FastifyBaseLogger } from 'fastify';
import pLimit from 'p-limit';
import type { Config } from '../../config.js';
import { transaction, type Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { isDatabaseUnavailable } from '../../db/outage.js';
import { ClaimKeeper } from '../../lib/claim-keeper.js';
import { PollLoop } from '../../lib/poll-loop.js';
import { queueEmail } from '../mail/index.js';
import {
  claimDueDeliveries,
  disableFailingEndpoint,
  failDelivery,
  findDeliveryTarget,
  findOrgAdmins,
  recordDelivered,
  recordFailedAttempt,
  renewDeliveryClaim,
  renewDeliveryClaims,
  type AttemptRecord,
  type DeliveryClaim,
} from './deliveries.repo.js';
import { ABANDONED, safePost, systemResolve, type Resolve } from './safe-request.js';
import { signedHeaders, signingSecrets } from './secrets.js';
import { endpointTurnedOffEmail } from './webhooks.emails.js';
import { pickLocale } from '../../lib/i18n/i18n.js';
import { failEndpointDeliveries } from './webhooks.repo.js';

export type { Resolve } from './safe-request.js';

export interface WebhookWorkerOptions {
  pollIntervalMs?: number;
  batchSize?: number;
  /** Deliveries of a batch in flight at once, so one slow receiver does not hold up the others. */
  concurrency?: number;
  /** A claim's lease, renewed five times a lease while it is held (ClaimKeeper). */
  leaseMs?: number;
  /** One attempt's limit, connecting to the last byte of the answer (10 s). */
  timeoutMs?: number;
  /** First retry delay; each further failure doubles it (with jitter), up to an hour. */
  retryBaseMs?: number;
  /** A delivery is retried for this long after its event, then marked failed (3 days). */
  retryForMs?: number;
  /** An endpoint whose every delivery failed for this long is disabled (5 days). */
  disableAfterMs?: number;
  resolve?: Resolve;
  keepProcessAlive?: boolean;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const USER_AGENT = 'mel-webhooks/1';

/**
 * Delivers queued webhook events; any number of workers may run against one database. Per-endpoint
 * ordering is not promised: retries and parallel sends overtake one another, receivers order by the
 * body's timestamp and de-duplicate by webhook-id (the event id, the same on every attempt).
 */
export class WebhookWorker {
  private readonly settings: Required<WebhookWorkerOptions>;
  private readonly loop: PollLoop;
  private readonly claims: ClaimKeeper<DeliveryClaim>;

  constructor(
    readonly db: Db,
    readonly config: Pick<Config, 'webhookAllowPrivate' | 'piiKeyring' | 'appUrl'>,
    readonly clock: Clock,
    readonly log: FastifyBaseLogger,
    readonly options: WebhookWorkerOptions = {},
  ) {
    this.settings = {
      pollIntervalMs: 1000,
      // Two rounds of `concurrency` attempts of at most 10 s each; the claims waiting meanwhile are renewed.
      batchSize: 8,
      concurrency: 4,
      // Renewed every second while the worker holds the claim, however long the attempt: after a crash,
      // what the dead worker held is taken over within 5 s (30 s before issue 36).
      leaseMs: 5 * 1000,
      timeoutMs: 10_000,
      retryBaseMs: 5000,
      retryForMs: 3 * DAY_MS,
      disableAfterMs: 5 * DAY_MS,
      resolve: systemResolve,
      keepProcessAlive: false,
      ...options,
    };
    // One delivery per endpoint per batch: the next batch comes at once while there is work.
    this.loop = new PollLoop(async () => (await this.deliverDue()) > 0, {
      intervalMs: this.settings.pollIntervalMs,
      keepProcessAlive: this.settings.keepProcessAlive,
      onError: (err) => this.log.error({ err }, 'webhook poll failed'),
      // One line per database outage, not one per poll.
      lastingFailure: (err) => (isDatabaseUnavailable(err) ? 'database unavailable' : null),
    });
    this.claims = new ClaimKeeper(
      (claims) => renewDeliveryClaims(this.db, claims, this.clock.now(), this.settings.leaseMs),
      this.settings.leaseMs,
      // An outage is the poll's to log, once.
      (err) => {
        if (!isDatabaseUnavailable(err)) this.log.error({ err }, 'webhook claims not renewed');
      },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Waits for the batch in hand, then stops polling. */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.claims.stop();
  }

  /** Delivers soon instead of at the next poll: called after a commit that queued deliveries. */
  wake(): void {
    this.loop.wake();
  }

  /** Delivers what is due now; returns how many deliveries it handled. */
  async deliverDue(): Promise<number> {
    const { batchSize, leaseMs, concurrency } = this.settings;
    const since = this.claims.now();
    const batch = await claimDueDeliveries(this.db, this.clock.now(), batchSize, leaseMs);
    this.claims.hold(batch, since);
    const limit = pLimit(concurrency);
    await Promise.all(
      batch.map((claim) =>
        limit(() =>
          this.deliver(claim, this.claims.signal(claim))
            .catch((err: unknown) =>
              // Left claimed: another attempt follows when the lease runs out.
              this.log.error({ err, deliveryId: claim.id }, 'webhook delivery broke off'),
            )
            .finally(() => this.claims.release(claim)),
        ),
      ),
    );
    return batch.length;
  }

  /** `lost` aborts once the claim is lost or could not be renewed: nothing more is sent or recorded. */
  private async deliver(claim: DeliveryClaim, lost: AbortSignal): Promise<void> {
    // Still held, and the endpoint still active (it may have been turned off while the batch waited).
    if (lost.aborted) return;
    if (!(await renewDeliveryClaim(this.db, claim, this.clock.now(), this.settings.leaseMs))) return;
    const target = await findDeliveryTarget(this.db, claim);
    if (!target) return;
    const at = this.clock.now();
    let signed: Record<string, string>;
    try {
      signed = signedHeaders(signingSecrets(this.config.piiKeyring, target, at), {
        id: claim.eventId,
        at,
        body: target.body,
      });
    } catch {
      // A secret sealed under a key this instance is not given: a failed attempt like any other (retried,
      // counted towards turning the endpoint off), not a claim left hanging.
      signed = {};
    }
    const outcome =
      'webhook-signature' in signed
        ? await safePost(
            target.url,
            {
              headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signed },
              body: target.body,
            },
            {
              allowPrivate: this.config.webhookAllowPrivate,
              resolve: this.settings.resolve,
              timeoutMs: this.settings.timeoutMs,
              signal: lost,
            },
          )
        : {
            statusCode: null,
            response: null,
            error: 'not signed: the secret does not open under PII_KEY',
            durationMs: 0,
          };
    const attempt: AttemptRecord = { at, ...outcome };
    // The host and the outcome only: a URL's path and query may carry the receiver's own token.
    const about = { deliveryId: claim.id, endpointId: claim.endpointId, host: hostOf(target.url) };
    if (outcome.error === ABANDONED) {
      // Another worker may hold it now, or will once the lease runs out: its attempt counts, not this one.
      this.log.warn(about, 'webhook delivery given up: its claim could not be kept');
      return;
    }
    if (outcome.error === null) {
      // A failure to record the success must not count as a failed attempt (that would send it again).
      await transaction(this.db, (tx) => recordDelivered(tx, claim, attempt)).catch((err: unknown) =>
        this.log.error({ err, ...about }, 'webhook delivered but not marked delivered'),
      );
      return;
    }
    // Retried within retryForMs of the event; a redelivery (a newer delivery of an old event) gets its own window.
    const since = Math.max(target.eventCreatedAt.getTime(), target.deliveryCreatedAt.getTime());
    const now = this.clock.now();
    const retryAt = new Date(now.getTime() + this.retryDelay(claim.attempts));
    const retry = retryAt.getTime() <= since + this.settings.retryForMs;
    const disabled = await transaction(this.db, (tx) =>
      this.recordFailure(tx, claim, attempt, retry ? retryAt : null, now),
    );
    this.log.warn(
      { ...about, attempts: claim.attempts, statusCode: outcome.statusCode, error: outcome.error, retry },
      'webhook delivery failed',
    );
    if (disabled) this.log.warn(about, 'webhook endpoint disabled after failing');
  }

  /** Exponential backoff with equal jitter: half the delay is fixed, half random, so retries spread out. */
  private retryDelay(attempts: number): number {
    const delay = Math.min(this.settings.retryBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    return delay / 2 + Math.random() * (delay / 2);
  }

  /**
   * Records the failed attempt and, when the endpoint has failed for disableAfterMs, turns it off, fails
   * what it still had pending and tells the organization's admins, all in one transaction. Returns
   * whether it turned the endpoint off.
   */
  private async recordFailure(
    tx: Db,
    claim: DeliveryClaim,
    attempt: AttemptRecord,
    retryAt: Date | null,
    now: Date,
  ): Promise<boolean> {
    const failingSince = await recordFailedAttempt(tx, claim, attempt, retryAt);
    const failingBefore = new Date(now.getTime() - this.settings.disableAfterMs);
    if (!failingSince || failingSince > failingBefore) return false;
    const endpoint = await disableFailingEndpoint(tx, claim, now, failingBefore);
    if (!endpoint) return false;
    await failDelivery(tx, claim);
    await failEndpointDeliveries(tx, claim.orgId, claim.endpointId);
    for (const admin of await findOrgAdmins(tx, claim.orgId)) {
      await queueEmail(
        tx,
        endpointTurnedOffEmail(
          {
            admin,
            orgId: claim.orgId,
            endpoint: { id: endpoint.id, host: hostOf(endpoint.url) },
            failingSince: endpoint.failingSince ?? attempt.at,
            lastError: attempt.error,
            appUrl: this.config.appUrl,
          },
          pickLocale(admin.locale),
        ),
      );
    }
    return true;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid url';
  }
}
