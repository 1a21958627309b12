/**
 * The timer of a worker that polls a queue: `round` runs at start, again at once while it answers that
 * there may be more, otherwise after `intervalMs`. `wake()` brings the next round forward (after the one
 * in hand), `stop()` waits for the round in hand. The timer keeps the process alive only when asked
 * (`npm run worker` asks; inside the server, the server does).
 */
export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private woken = false;

  constructor(
    private readonly round: () => Promise<boolean>,
    private readonly options: {
      intervalMs: number;
      keepProcessAlive: boolean;
      /** A round that threw: logged by the owner; the next one comes after the interval. */
      onError: (err: unknown) => void;
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
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
        .catch((err: unknown) => {
          this.options.onError(err);
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
