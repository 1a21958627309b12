import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClaimKeeper } from './claim-keeper.js';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

/** A keeper of a 1,000 ms lease on the fake clock, whose renewals `renew` answers (and are counted). */
function keeper(renew: (claims: string[]) => Promise<string[]>) {
  const asked: string[][] = [];
  const errors: unknown[] = [];
  const kept = new ClaimKeeper<string>(
    (claims) => {
      asked.push(claims);
      return renew(claims);
    },
    1_000,
    (err) => void errors.push(err),
    () => Date.now(),
  );
  return { kept, asked, errors };
}

describe('a worker’s claims', () => {
  it('are renewed five times a lease, in one call, while held, and no longer once released', async () => {
    const { kept, asked } = keeper(async (claims) => claims);
    kept.hold(['a', 'b'], Date.now());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked).toEqual(Array.from({ length: 5 }, () => ['a', 'b']));
    expect([kept.signal('a').aborted, kept.signal('b').aborted]).toEqual([false, false]);
    kept.release('a');
    await vi.advanceTimersByTimeAsync(200);
    expect(asked.at(-1)).toEqual(['b']);
    kept.release('b');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked).toHaveLength(6);
    // Not held: given up already.
    expect(kept.signal('a').aborted).toBe(true);
  });

  it('are lost when the renewal no longer finds them (taken over), and their work is told', async () => {
    const { kept } = keeper(async (claims) => claims.filter((claim) => claim !== 'b'));
    kept.hold(['a', 'b'], Date.now());
    const b = kept.signal('b');
    await vi.advanceTimersByTimeAsync(200);
    expect([kept.signal('a').aborted, b.aborted]).toEqual([false, true]);
  });

  it('are given up before the lease runs out when renewals fail, and the failures are told', async () => {
    const { kept, errors } = keeper(() => Promise.reject(new Error('database unavailable')));
    kept.hold(['a'], Date.now());
    const a = kept.signal('a');
    await vi.advanceTimersByTimeAsync(600);
    expect(a.aborted).toBe(false);
    // Past three fifths of the lease without a renewal: two renewals' time before another may take it.
    await vi.advanceTimersByTimeAsync(200);
    expect(a.aborted).toBe(true);
    expect(errors.length).toBeGreaterThanOrEqual(3);
  });

  it('are not renewed twice at once when a renewal is slow', async () => {
    const { kept, asked } = keeper(
      (claims) => new Promise((resolve) => setTimeout(() => resolve(claims), 250)),
    );
    kept.hold(['a'], Date.now());
    // Renewals at 200, 600 and 1,000 ms: those at 400 and 800 would overlap the one still running.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked.length).toBe(3);
    expect(kept.signal('a').aborted).toBe(false);
    kept.release('a');
  });
});
