import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { RedisLink } from './redis-link.js';

/** Waits for the key; the function returned lets it go (calling it again does nothing). */
export interface Locks {
  acquire(key: string): Promise<() => void>;
}

/** One holder at a time per key, the others served in arrival order. A key nobody holds takes no memory. */
export class KeyedLocks implements Locks {
  private readonly tails = new Map<string, Promise<void>>();

  async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const tail = previous ? previous.then(() => held) : held;
    this.tails.set(key, tail);
    if (previous) await previous;
    return once(() => {
      letGo();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }
}

/**
 * Longest a lock is kept in Redis. A write here takes milliseconds; an instance that dies holding a
 * lock blocks that one resource for this long at most.
 */
const HOLD_MS = 60_000;
/** Deletes the lock only if it is still ours (it may have expired and gone to another holder). */
const LET_GO = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

/**
 * The keyed lock of every instance sharing one Redis (REDIS_URL, as the rate limits): the in-process
 * lock first, so an instance asks Redis for a key only once at a time, then `SET NX PX` polled every
 * 5 to 100 ms. When Redis cannot be reached the write is locked in this instance only, as rate limits
 * fail open rather than take the API down (the link logs the outage once, not per write).
 */
export class SharedLocks implements Locks {
  private readonly local = new KeyedLocks();

  constructor(
    private readonly redis: RedisLink,
    private readonly log: FastifyBaseLogger,
  ) {}

  async acquire(key: string): Promise<() => void> {
    const letGoLocal = await this.local.acquire(key);
    const name = `mel-lock:${key}`;
    const token = randomUUID();
    try {
      if (!(await this.take(name, token))) {
        this.log.warn(
          { lock: name },
          `shared lock still held after ${HOLD_MS} ms: taken in this instance only`,
        );
        return letGoLocal;
      }
      this.redis.answered();
    } catch (err) {
      this.redis.failed(err);
      return letGoLocal;
    }
    return once(() => {
      this.redis.client
        .eval(LET_GO, 1, name, token)
        .then(
          () => this.redis.answered(),
          // Not released: it expires by itself after HOLD_MS.
          (err: unknown) => this.redis.failed(err),
        )
        .finally(letGoLocal);
    });
  }

  /** Whether the lock was taken before HOLD_MS passed; throws when Redis fails. */
  private async take(name: string, token: string): Promise<boolean> {
    const deadline = Date.now() + HOLD_MS;
    for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
      if ((await this.redis.client.set(name, token, 'PX', HOLD_MS, 'NX')) === 'OK') return true;
      if (Date.now() > deadline) return false;
      await sleep(wait);
    }
  }
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
