/**
 * The pure parts of the read routing (replica.ts): who wrote lately, WAL positions, and the lag they give.
 */
import { performance } from 'node:perf_hooks';

/**
 * Users who changed data lately, each until an expiry. Bounded: when full the oldest entry leaves, and
 * until it would have expired every caller counts as a recent writer (reads on the primary: safe).
 */
export class RecentWriters {
  private readonly until = new Map<string, number>();
  private everyoneUntil = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  add(userId: string): void {
    const now = this.now();
    // One ttl for all: insertion order is expiry order, so expired entries are at the front.
    for (const [user, expiry] of this.until) {
      if (expiry > now) break;
      this.until.delete(user);
    }
    this.until.delete(userId);
    this.until.set(userId, now + this.ttlMs);
    for (const [user, expiry] of this.until) {
      if (this.until.size <= this.capacity) break;
      this.until.delete(user);
      this.everyoneUntil = Math.max(this.everyoneUntil, expiry);
    }
  }

  has(userId: string): boolean {
    const now = this.now();
    return now < this.everyoneUntil || (this.until.get(userId) ?? 0) > now;
  }
}

/** A WAL position (`16/B374D848`) as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** A poll's primary position and when it was taken: the replica past it holds everything committed before then. */
export interface Mark {
  at: number;
  lsn: bigint;
}

/**
 * How far behind, in seconds: 0 once the replica has replayed the primary's position; else the smaller of
 * two upper bounds, the age of the last transaction it replayed (pg_last_xact_replay_timestamp, which
 * alone would call a replica an hour behind when the first write after an idle hour is a millisecond from
 * replay) and the age of the latest earlier poll whose primary position it has passed. Null: neither known.
 */
export function lagOf(
  replayed: bigint,
  primaryLsn: bigint,
  replayAgeSeconds: number | null,
  marks: readonly Mark[],
  now: number,
): number | null {
  if (replayed >= primaryLsn) return 0;
  let passed: Mark | undefined;
  for (const mark of marks) if (mark.lsn <= replayed) passed = mark;
  const bounds = [
    ...(replayAgeSeconds === null ? [] : [Math.max(0, replayAgeSeconds)]),
    ...(passed ? [(now - passed.at) / 1000] : []),
  ];
  return bounds.length > 0 ? Math.min(...bounds) : null;
}
