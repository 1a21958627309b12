/**
 * The timer of every background job (a worker that polls a queue, a job that runs on a schedule): `round`
 * runs at start (or `firstRunMs` after it), again at once while it answers that there may be more,
 * otherwise after `intervalMs`. `wake()` brings the next round forward (after the one
 * in hand), `stop()` waits for the round in hand. The timer keeps the process alive only when asked
 * (`npm run worker` asks; inside the server, the server does).
 */
export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private woken = false;
  /** The lasting failure already reported, until a round ends another way. */
  private reported: string | null = null;

  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly options: {
      intervalMs: number;
      /** The first round's delay after start (0: at once). */
      firstRunMs?: number;
      keepProcessAlive: boolean;
      /** A round that threw: logged by the owner; the next one comes after the interval. */
      onError: (err: unknown) => void;
      /**
       * The kind of a failure that repeats until something outside changes (a database outage): reported
       * once, then not again until a round succeeds or fails otherwise. Null for any other failure.
       */
      lastingFailure?: (err: unknown) => string | null;
    },
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.options.firstRunMs ?? 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.woken = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.round()
        .then((more) => {
          this.reported = null;
          return more;
        })
        .catch((err: unknown) => {
          const kind = this.options.lastingFailure?.(err) ?? null;
          if (kind === null || kind !== this.reported) this.options.onError(err);
          this.reported = kind;
          return false;
        })
        .then((more) => {
          this.running = null;
          const again = more || this.woken;
          this.woken = false;
          this.schedule(again ? 0 : this.options.intervalMs);
        });
    }, delay);
    if (!this.options.keepProcessAlive) this.timer.unref();
  }
}
