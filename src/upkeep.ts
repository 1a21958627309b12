import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { sealParticipants } from './modules/activities/index.js';
import { eraseExpiredPersonalAnswers } from './modules/forms/index.js';
import { purgeExpiredIdempotencyKeys } from './modules/idempotency/index.js';
import {
  purgeAuditEntries,
  checkSealingKey,
  recordSealingKey,
  SealingKeyMismatch,
} from './modules/privacy/index.js';
import { PollLoop } from './lib/poll-loop.js';
import { SealedValueError } from './lib/sealed-values.js';
import { purgeWebhookHistory } from './modules/webhooks/index.js';
import { purgeUnfinishedFiles } from './storage/database-storage.js';

/**
 * Before serving: the personal data in the database must open under PII_KEY (else SealingKeyMismatch,
 * and the service does not start). A database that records no key yet (new, or from before sealing)
 * has whatever is in clear sealed now, then the key recorded.
 */
export async function preparePersonalData(db: Db, config: Config): Promise<void> {
  if (await checkSealingKey(db, config.piiKeyring)) return;
  try {
    await sealParticipants(db, config.piiKeyring);
  } catch (err) {
    // The key record was lost but the data is sealed under a key not given: the same refusal.
    if (!(err instanceof SealedValueError)) throw err;
    throw new SealingKeyMismatch(
      `PII_KEY does not open the personal data in this database (${err.message}). Start with the key ` +
        'the data was sealed under as PII_KEY.',
    );
  }
  await recordSealingKey(db, config.piiKeyring, true);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily retention jobs: personal answers of forms past their `personalDataRetentionDays`, audit
 * entries past AUDIT_RETENTION, Idempotency-Keys past their 24 hours (with their sealed answers), and
 * webhook deliveries finished more than 30 days ago, and files whose writing into the database was
 * left unfinished a day ago (the process stopped mid-upload).
 * All are idempotent, so every instance may run them; the first run comes a minute after start, then
 * one a day.
 */
export class RetentionJobs {
  private readonly loop: PollLoop;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly log: FastifyBaseLogger,
    options: { firstRunMs?: number; keepProcessAlive?: boolean } = {},
  ) {
    // runOnce logs its own failure: a round never throws, and never asks for another at once.
    this.loop = new PollLoop(
      async () => {
        await this.runOnce();
        return false;
      },
      {
        intervalMs: DAY_MS,
        firstRunMs: options.firstRunMs ?? 60_000,
        keepProcessAlive: options.keepProcessAlive ?? false,
        onError: (err) => this.log.error({ err }, 'retention jobs failed'),
      },
    );
  }

  start(): void {
    this.loop.start();
  }

  /** One pass of the jobs; a failure is logged and the next day tries again. */
  async runOnce(): Promise<void> {
    try {
      const answers = await eraseExpiredPersonalAnswers(this.db);
      const entries = await purgeAuditEntries(this.db, this.config.auditRetentionSeconds);
      const idempotencyKeys = await purgeExpiredIdempotencyKeys(this.db);
      const webhooks = await purgeWebhookHistory(this.db);
      const unfinishedFiles = await purgeUnfinishedFiles(this.db);
      this.log.info(
        { answers, entries, idempotencyKeys, webhooks, unfinishedFiles },
        'retention: personal answers erased; audit entries, expired idempotency keys, old webhook deliveries and unfinished stored files purged',
      );
    } catch (err) {
      this.log.error({ err }, 'retention jobs failed');
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
