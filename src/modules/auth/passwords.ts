import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Config } from '../../config.js';
import { AppError } from '../../errors/catalogue.js';

/**
 * How many hashes may wait for a thread. Beyond it a sign-in is refused at once (503) instead of
 * queued without end: at cost 12 (about 230 ms a hash here) and one hashing thread, 100 waiting is
 * already 23 s of work, longer than a client waits. Tests lower it; a deployment could set it.
 */
export const hashQueue = { maxWaiting: 100 };
export const BUSY_RETRY_SECONDS = 5;

/**
 * Hashes and checks passwords with bcrypt at BCRYPT_COST. bcrypt runs on libuv's thread pool
 * (UV_THREADPOOL_SIZE threads, 4 unless set): a burst of sign-ins at cost 12 would take every core and
 * starve requests that need only the event loop and the database (measured by the login-storm bench:
 * reads' p99 x24). Hashes run one fewer at a time than there are cores (at least one), and leave a pool
 * thread for file and DNS work; the rest wait their turn. The pool is the process's: `buildApp` makes
 * one hasher.
 */
export class PasswordHasher {
  private readonly hashing: LimitFunction;
  private readonly cost: number;

  constructor(config: Pick<Config, 'bcryptCost' | 'threadPoolSize'>, cores = availableParallelism()) {
    this.cost = config.bcryptCost;
    this.hashing = pLimit(Math.max(1, Math.min(cores - 1, config.threadPoolSize - 1)));
  }

  hash(password: string): Promise<string> {
    return this.queued(() => bcrypt.hash(password, this.cost));
  }

  matches(password: string, hash: string): Promise<boolean> {
    return this.queued(() => bcrypt.compare(password, hash));
  }

  /** Hashes running now and waiting for a thread (GET /metrics). */
  load(): { active: number; pending: number } {
    return { active: this.hashing.activeCount, pending: this.hashing.pendingCount };
  }

  private queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.hashing.pendingCount >= hashQueue.maxWaiting) {
      return Promise.reject(
        new AppError(503, `The service is busy, retry in ${BUSY_RETRY_SECONDS} seconds`, {
          'retry-after': String(BUSY_RETRY_SECONDS),
        }),
      );
    }
    return this.hashing(work);
  }
}
