import { performance } from 'node:perf_hooks';

/**
 * Keeps a worker's claims on queue rows (outbox emails, webhook deliveries) while it works on them. The
 * lease a claim takes is short, so that what a dead worker held (killed, its machine gone) is taken over
 * within seconds; the live worker renews every claim it still holds five times a lease, in one statement,
 * however long a delivery takes. A claim the renewal no longer finds was lost (taken over, or ended by
 * another path); one that went unrenewed for three fifths of a lease (the database out of reach) may soon
 * be taken over. Either way its signal is aborted, so that the work stops before another worker could
 * start it again.
 */
export class ClaimKeeper<C> {
  private readonly held = new Map<C, { renewedAt: number; lost: AbortController }>();
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private renewing = false;

  constructor(
    /** Renews the claims' leases; resolves to those it still holds. */
    private readonly renew: (claims: C[]) => Promise<C[]>,
    private readonly leaseMs: number,
    private readonly onError: (err: unknown) => void,
    /** This keeper's clock (monotonic ms): `hold` takes a time from it. */
    readonly now: () => number = () => performance.now(),
  ) {
    this.intervalMs = Math.max(1, Math.floor(leaseMs / 5));
  }

  /** Keeps `claims`, whose lease was taken by a statement sent at `since` (this clock's time, from `now`). */
  hold(claims: readonly C[], since: number): void {
    for (const claim of claims) this.held.set(claim, { renewedAt: since, lost: new AbortController() });
    if (this.held.size > 0 && !this.timer) {
      this.timer = setInterval(() => this.tick(), this.intervalMs);
      // The worker's poll keeps the process alive when it should; this timer never does.
      this.timer.unref();
    }
  }

  /** Aborted once the claim is lost or could not be renewed in time; aborted already when not held. */
  signal(claim: C): AbortSignal {
    return this.held.get(claim)?.lost.signal ?? AbortSignal.abort();
  }

  /** The work on `claim` is over (delivered, recorded, given up): it is no longer renewed. */
  release(claim: C): void {
    this.held.delete(claim);
    if (this.held.size === 0) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private lose(claim: C): void {
    this.held.get(claim)?.lost.abort();
    this.release(claim);
  }

  private tick(): void {
    const now = this.now();
    // Two renewals' time before the lease runs out: enough for the work to stop first.
    for (const [claim, { renewedAt }] of this.held) {
      if (now - renewedAt > this.leaseMs - 2 * this.intervalMs) this.lose(claim);
    }
    if (this.renewing || this.held.size === 0) return;
    this.renewing = true;
    const claims = [...this.held.keys()];
    this.renew(claims)
      .then(
        (kept) => {
          const still = new Set(kept);
          for (const claim of claims) {
            const entry = this.held.get(claim);
            if (!entry) continue;
            if (still.has(claim)) entry.renewedAt = Math.max(entry.renewedAt, now);
            else this.lose(claim);
          }
        },
        (err: unknown) => this.onError(err),
      )
      .finally(() => {
        this.renewing = false;
      });
  }
}
