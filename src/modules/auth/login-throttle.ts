import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/client.js';
import { clearLoginFailures, findLoginFailures, recordLoginFailure } from './auth.repo.js';

/** Failures an account may have before its attempts wait: a few typos never slow anyone down. */
export const FREE_FAILURES = 5;
export const FIRST_DELAY_MS = 250;
/** The longest wait: an attacker failing on purpose can slow the owner by this much, never shut them out. */
export const MAX_DELAY_MS = 10_000;

/**
 * How long a password attempt waits after `failures` failed ones, the last `sinceLastMs` ago: 250 ms after
 * the fifth, doubling with each further failure up to 10 s, counted from the last failure (an owner who
 * comes back later does not wait at all).
 */
export function loginDelayMs(failures: number, sinceLastMs: number): number {
  if (failures < FREE_FAILURES) return 0;
  const full = Math.min(FIRST_DELAY_MS * 2 ** (failures - FREE_FAILURES), MAX_DELAY_MS);
  return Math.max(0, Math.ceil(full - sinceLastMs));
}

/**
 * Failed password sign-ins per account across every address and instance (issue 20, finding 9), kept in
 * the database by normalized email whether or not the account exists: an unknown email is counted and
 * slowed exactly like a wrong password, so the delay tells nothing about which emails are registered.
 * Never a lockout: the right password after the wait signs in, and resets the count.
 */
export class LoginThrottle {
  constructor(private readonly db: Db) {}

  /** Waits what the account's recent failures call for; true when there are any to clear on success. */
  async wait(email: string): Promise<boolean> {
    const recent = await findLoginFailures(this.db, email);
    if (!recent) return false;
    const delay = loginDelayMs(recent.failures, recent.sinceLastMs);
    if (delay > 0) await sleep(delay);
    return true;
  }

  failed(email: string): Promise<void> {
    return recordLoginFailure(this.db, email);
  }

  succeeded(email: string): Promise<void> {
    return clearLoginFailures(this.db, email);
  }
}
