import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { isDatabaseUnavailable } from '../../db/outage.js';
import type { Clock } from '../../lib/clock.js';
import { PollLoop } from '../../lib/poll-loop.js';
import { ClaimKeeper } from '../../lib/claim-keeper.js';
import { claimDue, markFailed, markSent, renewClaim, renewClaims, type ClaimedEmail } from './mail.repo.js';
import type { SendEmail } from './mail.transport.js';

export interface OutboxWorkerOptions {
  pollIntervalMs?: number;
  /** First retry delay; each further failure doubles it, up to an hour. */
  retryBaseMs?: number;
  maxAttempts?: number;
  batchSize?: number;
  /** A claim's lease, renewed five times a lease while it is held (ClaimKeeper). */
  leaseMs?: number;
  /** The standalone worker keeps the process alive with its timer; inside the server, the server does. */
  keepProcessAlive?: boolean;
}

const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** Delivers queued emails; any number of workers may run against one database. */
export class OutboxWorker {
  private readonly options: Required<OutboxWorkerOptions>;
  private readonly loop: PollLoop;
  private readonly claims: ClaimKeeper<ClaimedEmail>;

  constructor(
    private readonly db: Db,
    private readonly send: SendEmail,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    options: OutboxWorkerOptions = {},
  ) {
    this.options = {
      pollIntervalMs: 1000,
      retryBaseMs: 5000,
      maxAttempts: 20,
      batchSize: 20,
      // Renewed every second while the worker holds the claim, however long the mail server takes: after
      // a crash, what the dead worker held is sent by another within 5 s (5 minutes before issue 36).
      leaseMs: 5 * 1000,
      keepProcessAlive: false,
      ...options,
    };
    // A full batch may leave more behind: the next comes at once.
    this.loop = new PollLoop(async () => (await this.deliverDue()) === this.options.batchSize, {
      intervalMs: this.options.pollIntervalMs,
      keepProcessAlive: this.options.keepProcessAlive,
      onError: (err) => this.log.error({ err }, 'outbox poll failed'),
      // One line per database outage, not one per poll.
      lastingFailure: (err) => (isDatabaseUnavailable(err) ? 'database unavailable' : null),
    });
    this.claims = new ClaimKeeper(
      (claims) => renewClaims(this.db, claims, this.clock.now(), this.options.leaseMs),
      this.options.leaseMs,
      // An outage is the poll's to log, once.
      (err) => {
        if (!isDatabaseUnavailable(err)) this.log.error({ err }, 'outbox claims not renewed');
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

  /** Delivers soon instead of at the next poll: called after a commit that queued email. */
  wake(): void {
    this.loop.wake();
  }

  /** Delivers what is due now; returns how many messages it handled. */
  async deliverDue(): Promise<number> {
    const since = this.claims.now();
    const batch = await claimDue(this.db, this.clock.now(), this.options.batchSize, this.options.leaseMs);
    this.claims.hold(batch, since);
    try {
      for (const email of batch) {
        await this.deliver(email, this.claims.signal(email));
        this.claims.release(email);
      }
    } finally {
      // A failure to record one leaves the rest to their leases: no longer renewed.
      for (const email of batch) this.claims.release(email);
    }
    return batch.length;
  }

  /**
   * `lost` aborts once the claim is lost or could not be renewed: a send not begun is not begun. One in
   * progress cannot be taken back from the mail server; it is renewed for as long as it takes.
   */
  private async deliver(email: ClaimedEmail, lost: AbortSignal): Promise<void> {
    if (lost.aborted) return;
    // Earlier sends of the batch may have taken long: send only while this worker still holds the claim.
    if (!(await renewClaim(this.db, email, this.clock.now(), this.options.leaseMs))) return;
    let error: string | null = null;
    try {
      await this.send(email);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (error === null) {
      // A failure to record the success must not count as a failed send (that would send it again).
      await markSent(this.db, email, this.clock.now()).catch((err: unknown) =>
        this.log.error({ err, emailId: email.id }, 'email sent but not marked sent'),
      );
      return;
    }
    const retry = email.attempts < this.options.maxAttempts;
    const delay = Math.min(this.options.retryBaseMs * 2 ** (email.attempts - 1), MAX_BACKOFF_MS);
    const now = this.clock.now();
    await markFailed(this.db, email, now, error, retry ? new Date(now.getTime() + delay) : null);
    this.log.warn({ emailId: email.id, attempts: email.attempts, error, retry }, 'email delivery failed');
  }
}
