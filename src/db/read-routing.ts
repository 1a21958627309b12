/**
 * What the read routing offers (replica.ts): its interface and options, and the routing without a replica.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './client.js';

/** Why a routed read ran on the primary. A fixed list: a metric carries it as a label. */
export const FALLBACK_REASONS = ['down', 'lag', 'busy', 'recent_write', 'not_caught_up', 'conflict'] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

/** What the read routing knows of the replica now (GET /metrics reads it). */
export interface ReplicaState {
  /** DATABASE_REPLICA_URL is set. Without it every read runs on the primary and nothing here moves. */
  configured: boolean;
  /** How far behind the primary the replica was at the last poll; null when not known (down, never measured, no recent poll). */
  lagSeconds: number | null;
  /** Routed reads may go to the replica: it answered a recent poll and was within REPLICA_MAX_LAG. */
  usable: boolean;
  /**
   * Routed reads that ran on the primary since start, by reason: `down` (unreachable, not a standby, or a
   * read it did not answer in time), `lag` (behind more than REPLICA_MAX_LAG, or no lag reading lately),
   * `busy` (every replica connection in use: that read only), `recent_write` (the caller changed data
   * within that time), `not_caught_up` (a stored snapshot, and the replica had not replayed what was
   * committed before it began), `conflict` (the replica cancelled the query to replay past it).
   */
  fallbacks: Record<FallbackReason, number>;
  /** The replica's connection pool. */
  pool: { total: number; idle: number; waiting: number };
}

export interface ReadOptions {
  /** The user the read is for: their own changes of the last REPLICA_MAX_LAG seconds must show. */
  caller?: string;
  /**
   * The result is stored (a report's snapshot): the replica only once it has replayed everything the
   * primary had committed when the read began, else the primary. Stronger than `caller`. `work` gets one
   * replica connection, released when it resolves: nothing may read from it after (a stream).
   */
  caughtUp?: boolean;
  /** A failure the replica may owe to its lag (a row not replayed yet): the read runs again on the primary. */
  staleIf?: (error: unknown) => boolean;
  /**
   * `work` returns a stream that goes on reading after it resolves (an export): the replica must first
   * answer a probe within the timeout, so that a silent one falls back before the first byte is sent.
   */
  streamed?: boolean;
}

/**
 * Where heavy reads run. Without a replica every read runs on the primary. With one, a read runs there
 * unless the replica is down or behind, the caller has just written, or (for stored snapshots) it has not
 * replayed the primary's position yet; a read that loses the replica's connection runs again on the
 * primary. Reads inside a write's transaction never come here: they take the transaction's handle.
 */
export interface ReadRouting {
  /** Runs `work` on the replica or the primary; `onReplica` says which (a read may check a detail on the primary). */
  read<T>(work: (db: Db, onReplica: boolean) => Promise<T>, how?: ReadOptions): Promise<T>;
  /** The user's change succeeded: their routed reads stay on the primary for REPLICA_MAX_LAG (and a poll). */
  wrote(userId: string): void;
  /**
   * Measures the lag once, then every poll interval. Until then nothing is open and every read runs on
   * the primary: what fails before it (the rest of start-up) leaves no connection behind.
   */
  start(): Promise<void>;
  state(): ReplicaState;
  close(): Promise<void>;
}

export interface ReplicaOptions {
  /** How often the replica's lag is measured. */
  pollIntervalMs?: number;
  /** How long a stored snapshot waits for the replica to replay the primary's position before using the primary. */
  catchUpWaitMs?: number;
  /**
   * Connecting to the replica, waiting for a free replica connection, and each lag query (on either
   * server) give up after this. A lag reading older than a poll interval and this is not gone by.
   */
  timeoutMs?: number;
  /**
   * A read on the replica that has not answered after this fails, and runs again on the primary: by
   * default DATABASE_STATEMENT_TIMEOUT and `timeoutMs` (the server would have cancelled it by then), 30 s
   * without statement limits; a statement given a longer limit (withStatementTimeout) waits past that.
   */
  queryTimeoutMs?: number;
  poolSize?: number;
  /** Recent writers remembered (read-your-writes); past it, see RecentWriters. */
  writersKept?: number;
  onFallback?: (reason: FallbackReason) => void;
  log?: Pick<FastifyBaseLogger, 'warn' | 'info'>;
}

export const noFallbacks = (): Record<FallbackReason, number> =>
  Object.fromEntries(FALLBACK_REASONS.map((reason) => [reason, 0])) as Record<FallbackReason, number>;

/** Every read on the primary: no DATABASE_REPLICA_URL. */
export function primaryOnly(primary: Db): ReadRouting {
  return {
    read: (work) => work(primary, false),
    wrote: () => undefined,
    start: async () => undefined,
    state: () => ({
      configured: false,
      lagSeconds: null,
      usable: false,
      fallbacks: noFallbacks(),
      pool: { total: 0, idle: 0, waiting: 0 },
    }),
    close: async () => undefined,
  };
}
