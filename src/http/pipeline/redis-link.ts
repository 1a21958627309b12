import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

/**
 * The Redis of REDIS_URL (shared rate limits and write locks) and whether it answers. Its users fail open
 * when it does not (a limit is not counted, a lock holds in this instance only), and tell the link how
 * each command went: an outage is logged once when first met and once when Redis answers again, never
 * per request. `/health/ready` and the `mel_redis_up` metric read `check()`.
 */
export class RedisLink {
  private reachable = true;
  private closing = false;

  constructor(
    readonly client: Redis,
    private readonly log: FastifyBaseLogger,
  ) {
    // ioredis reports each failed reconnection here, many a second while Redis is gone.
    client.on('error', (err: unknown) => this.failed(err));
    client.on('ready', () => this.answered());
  }

  get up(): boolean {
    return this.reachable;
  }

  /** A command was answered (or the connection is ready again). */
  answered(): void {
    if (this.reachable || this.closing) return;
    this.reachable = true;
    this.log.info('Redis answers again: rate limits are counted and write locks shared again');
  }

  /** A command failed: timed out, refused while disconnected, or refused by Redis. */
  failed(err: unknown): void {
    if (!this.reachable || this.closing) return;
    this.reachable = false;
    this.log.warn(
      { err },
      'Redis out of reach: rate limits are not counted and write locks hold in this instance only until it answers',
    );
  }

  /** Asks Redis now (within the command timeout): whether it answered. */
  async check(): Promise<boolean> {
    try {
      await this.client.ping();
      this.answered();
    } catch (err) {
      this.failed(err);
    }
    return this.reachable;
  }

  close(): void {
    this.closing = true;
    this.client.disconnect();
  }
}

/**
 * Connects before the app takes requests, so the first ones are counted too. If Redis does not answer
 * within `connectTimeoutMs` the service starts anyway, failing open until it does.
 *
 * A hung Redis (stopped, a frozen host, a network that drops packets) accepts connections and commands
 * and answers nothing: every command gives up after `commandTimeoutMs`, and a connection on which nothing
 * arrives for as long while a command waits is dropped, so commands fail at once (nothing is queued while
 * disconnected) until a new connection is ready. A command cut off by a dropped connection is not sent
 * again: its request was let through long ago.
 */
export async function connectRedis(
  url: string,
  commandTimeoutMs: number,
  log: FastifyBaseLogger,
  connectTimeoutMs = 5000,
): Promise<RedisLink> {
  // Loaded only when REDIS_URL is set: ioredis is about 1 MB of heap a service without Redis never uses.
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
  });
  const link = new RedisLink(client, log);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${connectTimeoutMs} ms`)),
          connectTimeoutMs,
        );
      }),
    ]);
  } catch (err) {
    link.failed(err);
  } finally {
    clearTimeout(timer);
  }
  return link;
}
