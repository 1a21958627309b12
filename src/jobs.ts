import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { outsideCommitMarks } from './db/commit-marks.js';
import type { Clock } from './lib/clock.js';
import { OutboxWorker, type OutboxWorkerOptions, type SendEmail } from './modules/mail/index.js';
import { ReminderJob, type ReminderJobOptions } from './modules/reminders/index.js';
import { WebhookWorker, type WebhookWorkerOptions } from './modules/webhooks/index.js';
import { RetentionJobs } from './upkeep.js';

export interface JobsOptions {
  /** `false` leaves a job to another process (`npm run worker`); its part is still built, for tests to drive. */
  outbox?: OutboxWorkerOptions | false;
  webhooks?: WebhookWorkerOptions | false;
  reminders?: ReminderJobOptions | false;
  retention?: { firstRunMs?: number } | false;
  /** `npm run worker` lives on its jobs' timers; inside the server, the server keeps the process alive. */
  keepProcessAlive?: boolean;
}

interface Job {
  start(): void;
  stop(): Promise<void>;
}

/**
 * The background jobs, started and stopped together by the server (app.ts) and by `npm run worker`: the
 * email outbox, webhook deliveries, deadline reminders and the daily retention purges. Each runs on a
 * PollLoop; all take time from one clock, so tests move it instead of waiting.
 */
export class Jobs {
  readonly outbox: OutboxWorker;
  readonly webhooks: WebhookWorker;
  readonly reminders: ReminderJob;
  readonly retention: RetentionJobs;
  /** Wakes the outbox after a commit that queued email. Called from inside requests: see outsideCommitMarks. */
  readonly mailQueued = outsideCommitMarks(() => this.outbox.wake());
  /** Wakes the webhook worker after a commit that queued a delivery. */
  readonly webhooksQueued = outsideCommitMarks(() => this.webhooks.wake());
  private readonly all: Job[];
  private readonly enabled: Job[];

  constructor(
    parts: {
      db: Db;
      /** The retention purges work in bulk: the export statement limit, not a request's. */
      bulk: Db;
      config: Config;
      send: SendEmail;
      clock: Clock;
      log: FastifyBaseLogger;
    },
    options: JobsOptions = {},
  ) {
    const { db, bulk, config, send, clock, log } = parts;
    const keepProcessAlive = options.keepProcessAlive ?? false;
    /** A job's own options (none when another process runs it), with the process's keep-alive. */
    const own = <T extends object>(chosen: T | false | undefined) => ({
      keepProcessAlive,
      ...(chosen || {}),
    });
    this.outbox = new OutboxWorker(db, send, clock, log, own(options.outbox));
    this.webhooks = new WebhookWorker(db, config, clock, log, own(options.webhooks));
    this.reminders = new ReminderJob(db, config, clock, log, own(options.reminders));
    this.retention = new RetentionJobs(bulk, config, log, own(options.retention));
    this.all = [this.outbox, this.webhooks, this.reminders, this.retention];
    const chosen = [options.outbox, options.webhooks, options.reminders, options.retention];
    this.enabled = this.all.filter((_, i) => chosen[i] !== false);
  }

  start(): void {
    for (const job of this.enabled) job.start();
  }

  /**
   * Stops every job (one started by hand too) and waits for the rounds in hand, all at once: each round
   * commits its own work, and what one queues for another (a reminder's email) waits in its table.
   */
  async stop(): Promise<void> {
    await Promise.all(this.all.map((job) => job.stop()));
  }
}
