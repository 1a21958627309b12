/** Counts by key, in this process: what a Prometheus counter with one label shows (read at scrape time). */
export class Tally {
  private readonly counts = new Map<string, number>();

  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  totals(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}
