import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/client.js';
import { rateLimited } from '../../errors/catalogue.js';
import { clearLoginFailures, nextLoginTurnMs, reserveLoginAttempt, type LoginBackOff } from './auth.repo.js';

/**
 * Failures an account may have before its attempts wait (a few typos never slow anyone down); then 250 ms,
 * doubling with each further failure. The longest wait is what an attacker failing on purpose can slow the
 * owner by: 10 s.
 */
export const BACK_OFF: LoginBackOff = { freeFailures: 5, firstDelayMs: 250, maxDelayMs: 10_000 };
/**
 * An attempt whose turn is further off is refused unchecked: one alone never waits longer than the back-off
 * (so it is never refused), while a burst can hold at most about three turns at a time. Two back-offs, not
 * one: an attacker who sends each guess as the last one is answered holds one turn, and the owner's
 * attempt still gets the next (the review found one back-off let a single such attacker keep the owner
 * out); several attackers guessing at once can still hold every turn while they last.
 */
export const MAX_WAIT_MS = 2 * BACK_OFF.maxDelayMs;

/**
 * Failed password sign-ins per account across every address and instance (issue 20, finding 9), kept in
 * the database by normalized email whether or not the account exists: an unknown email is counted and
 * slowed exactly like a wrong password, so the delay tells nothing about which emails are registered.
 * Each attempt takes its turn before it is checked (issue 36, finding 5): concurrent guesses are checked
 * one back-off apart, and those that would wait past 10 s are refused with the rate limit's 429. Never a
 * lockout: the right password after the wait signs in, and resets the count.
 */
export class LoginThrottle {
  constructor(private readonly db: Db) {}

  /**
   * Waits for the account's next turn, counting this attempt as a failure until `succeeded`; throws 429
   * with `Retry-After` when the turn is more than MAX_WAIT_MS away.
   */
  async reserve(email: string): Promise<void> {
    const waitMs = await reserveLoginAttempt(this.db, email, BACK_OFF, MAX_WAIT_MS);
    if (waitMs === undefined) {
      throw rateLimited(Math.max(1, Math.ceil((await nextLoginTurnMs(this.db, email, BACK_OFF)) / 1000)));
    }
    if (waitMs > 0) await sleep(waitMs);
  }

  succeeded(email: string): Promise<void> {
    return clearLoginFailures(this.db, email);
  }
}
