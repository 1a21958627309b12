import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import pLimit from 'p-limit';
import { AppError } from '../../errors/catalogue.js';

/**
 * bcrypt runs on libuv's thread pool (4 threads): a burst of sign-ins at cost 12 would take every core
 * and starve requests that need only the event loop and the database (measured by the login-storm
 * bench: reads' p99 x24). Hashes run one fewer at a time than there are cores (at least one), and
 * leave a pool thread for file and DNS work; the rest wait their turn.
 */
const threadPool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const hashing = pLimit(Math.max(1, Math.min(availableParallelism() - 1, threadPool - 1)));

/**
 * How many hashes may wait for a thread. Beyond it a sign-in is refused at once (503) instead of
 * queued without end: at cost 12 (about 230 ms a hash here) and one hashing thread, 100 waiting is
 * already 23 s of work, longer than a client waits. Tests lower it; a deployment could set it.
 */
export const hashQueue = { maxWaiting: 100 };
export const BUSY_RETRY_SECONDS = 5;

/** Hashes running now and waiting for a thread, process-wide (GET /metrics). */
export const hashingLoad = (): { active: number; pending: number } => ({
  active: hashing.activeCount,
  pending: hashing.pendingCount,
});

function queued<T>(work: () => Promise<T>): Promise<T> {
  if (hashing.pendingCount >= hashQueue.maxWaiting) {
    return Promise.reject(
      new AppError(503, `The service is busy, retry in ${BUSY_RETRY_SECONDS} seconds`, {
        'retry-after': String(BUSY_RETRY_SECONDS),
      }),
    );
  }
  return hashing(work);
}

export const hashPassword = (password: string, cost: number): Promise<string> =>
  queued(() => bcrypt.hash(password, cost));

export const passwordMatches = (password: string, hash: string): Promise<boolean> =>
  queued(() => bcrypt.compare(password, hash));
