import { AsyncLocalStorage } from 'node:async_hooks';

/** What the outermost open transaction runs once it has committed; `done` once it ended either way. */
interface Pending {
  callbacks: (() => void)[];
  done: boolean;
}

const pending = new AsyncLocalStorage<Pending>();

/**
 * Runs `then` once the transaction in hand has committed, never when it rolls back (at once outside a
 * transaction): a worker woken for what the transaction queued finds it there.
 */
export function afterCommit(then: () => void): void {
  const open = pending.getStore();
  if (open && !open.done) open.callbacks.push(then);
  else then();
}

/** Runs the outermost transaction `run` with its after-commit list; a nested one joins its outer list. */
export async function collectingAfterCommit<T>(run: () => Promise<T>): Promise<T> {
  const outer = pending.getStore();
  if (outer && !outer.done) return run();
  const own: Pending = { callbacks: [], done: false };
  let result: T;
  try {
    result = await pending.run(own, run);
  } finally {
    own.done = true;
  }
  for (const then of own.callbacks) then();
  return result;
}
