import { availableParallelism } from 'node:os';
import bcrypt from 'bcrypt';
import pLimit from 'p-limit';

/**
 * bcrypt runs on libuv's thread pool (4 threads): a burst of sign-ins at cost 12 would take every core
 * and starve requests that need only the event loop and the database (measured by the login-storm
 * bench: reads' p99 x24). Hashes run one fewer at a time than there are cores (at least one), and
 * leave a pool thread for file and DNS work; the rest wait their turn.
 */
const threadPool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const hashing = pLimit(Math.max(1, Math.min(availableParallelism() - 1, threadPool - 1)));

export const hashPassword = (password: string, cost: number): Promise<string> =>
  hashing(() => bcrypt.hash(password, cost));

export const passwordMatches = (password: string, hash: string): Promise<boolean> =>
  hashing(() => bcrypt.compare(password, hash));
