/**
 * The one source of "now" for what runs on time (webhook retries, endpoint disabling, reminders):
 * tests hand the app a clock they move instead of waiting days.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved (tests, and the crash test's child through CLOCK_OFFSET). */
export class MovableClock implements Clock {
  constructor(private at: Date = new Date()) {}

  now(): Date {
    return new Date(this.at);
  }

  set(at: Date): void {
    this.at = new Date(at);
  }

  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
