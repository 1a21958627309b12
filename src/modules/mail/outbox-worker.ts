import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.js';
import { isDatabaseUnavailable } from '../../db/outage.js';
import { PollLoop } from '../../lib/poll-loop.js';
import { claimDue, markFailed, markSent, renewClaim } from './mail.repo.js';
import type { SendEmail } from './mail.transport.js';

export interface OutboxWorkerOptions {
  pollIntervalMs?: number;
  /** First retry delay; each further failure doubles it, up to an hour. */
  retryBaseMs?: number;
  maxAttempts?: number;
  batchSize?: number;
  leaseMs?: number;
  /** The standalone worker keeps the process alive with its timer; inside the server, the server does. */
  keepProcessAlive?: boolean;
}

const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** Delivers queued emails; any number of workers may run against one database. */
export class OutboxWorker {
  private readonly options: Required<OutboxWorkerOptions>;
  private readonly loop: PollLoop;

  constructor(
    private readonly db: Db,
    private readonly send: SendEmail,
    private readonly log: FastifyBaseLogger,
    options: OutboxWorkerOptions = {},
  ) {
    this.options = {
      pollIntervalMs: 1000,
      retryBaseMs: 5000,
      maxAttempts: 20,
      batchSize: 20,
      leaseMs: 5 * 60 * 1000,
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
  }

  start(): void {
    this.loop.start();
  }

  /** Waits for the batch in hand, then stops polling. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Delivers soon instead of at the next poll: called after a commit that queued email. */
  wake(): void {
    this.loop.wake();
  }

  /** Delivers what is due now; returns how many messages it handled. */
  async deliverDue(): Promise<number> {
    const batch = await claimDue(this.db, this.options.batchSize, this.options.leaseMs);
    for (const email of batch) {
      // Earlier sends of the batch may have taken long: send only while this worker still holds the claim.
      if (!(await renewClaim(this.db, email, this.options.leaseMs))) continue;
      let error: string | null = null;
      try {
        await this.send(email);
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      if (error === null) {
        // A failure to record the success must not count as a failed send (that would send it again).
        await markSent(this.db, email).catch((err: unknown) =>
          this.log.error({ err, emailId: email.id }, 'email sent but not marked sent'),
        );
        continue;
      }
      const retry = email.attempts < this.options.maxAttempts;
      const delay = Math.min(this.options.retryBaseMs * 2 ** (email.attempts - 1), MAX_BACKOFF_MS);
      await markFailed(this.db, email, error, retry ? new Date(Date.now() + delay) : null);
      this.log.warn({ emailId: email.id, attempts: email.attempts, error, retry }, 'email delivery failed');
    }
    return batch.length;
  }
}
