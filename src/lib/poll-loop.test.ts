import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PollLoop } from './poll-loop.js';

/** Runs the loop through `outcomes` (an Error throws, anything else answers "no more") and collects what it reported. */
async function reported(outcomes: (Error | boolean)[]) {
  const errors: string[] = [];
  let round = 0;
  let finished = () => undefined as void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const loop = new PollLoop(
    async () => {
      const outcome = outcomes[round++];
      if (round >= outcomes.length) finished();
      if (outcome instanceof Error) throw outcome;
      return false;
    },
    {
      intervalMs: 1,
      keepProcessAlive: false,
      onError: (err) => errors.push((err as Error).message),
      lastingFailure: (err) => ((err as Error).message.startsWith('down') ? 'down' : null),
    },
  );
  loop.start();
  await done;
  await sleep(5);
  await loop.stop();
  return errors;
}

describe('PollLoop', () => {
  it('reports a lasting failure once until a round succeeds, and every other failure each time', async () => {
    expect(
      await reported([
        new Error('down 1'),
        new Error('down 2'),
        new Error('down 3'),
        false,
        new Error('down 4'),
        new Error('bug 1'),
        new Error('bug 2'),
        new Error('down 5'),
        new Error('down 6'),
      ]),
    ).toEqual(['down 1', 'down 4', 'bug 1', 'bug 2', 'down 5']);
  });

  describe('on a schedule', () => {
    afterEach(() => vi.useRealTimers());

    it('runs first after firstRunMs, then every intervalMs, and a second start does not double it', async () => {
      vi.useFakeTimers();
      let rounds = 0;
      const loop = new PollLoop(async () => ((rounds += 1), false), {
        intervalMs: 1000,
        firstRunMs: 60,
        keepProcessAlive: false,
        onError: () => undefined,
      });
      loop.start();
      loop.start();
      await vi.advanceTimersByTimeAsync(59);
      expect(rounds).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(rounds).toBe(1);
      await vi.advanceTimersByTimeAsync(999);
      expect(rounds).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(rounds).toBe(2);
      await loop.stop();
      await vi.advanceTimersByTimeAsync(5000);
      expect(rounds).toBe(2);
    });
  });
});
