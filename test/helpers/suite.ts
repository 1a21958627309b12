import { afterAll, beforeAll } from 'vitest';
import { buildTestApp, type TestApp } from './app.js';
import { createTeam, type Team } from './factories.js';

/**
 * A file's app and team, for a file that needs no configuration of its own: the worker's shared app
 * (test/helpers/app.ts) and a fresh team in a fresh organization, made before the file's tests and the
 * app given back after them.
 *
 *     const { t, team } = useSuite();
 *
 * Both are ready inside tests and hooks, not while the file loads (reading them then throws, saying so).
 */
export function useSuite(): { t: TestApp; team: Team } {
  const ready: { t?: TestApp; team?: Team } = {};
  beforeAll(async () => {
    ready.t = await buildTestApp();
    ready.team = await createTeam(ready.t.app, ready.t.database.db);
  });
  afterAll(async () => {
    await ready.t?.close();
    delete ready.t;
    delete ready.team;
  });
  return { t: later(() => ready.t, 'app'), team: later(() => ready.team, 'team') };
}

/**
 * A test file's app and team as its beforeAll left them. Scenes shared by several files are bound at import,
 * before either exists, so they take this and read it only when a test calls them.
 */
export type Suite<T extends TestApp = TestApp> = () => { t: T; team: Team };

/** An object that stands for the one `get` returns once the file's hooks have made it. */
function later<T extends object>(get: () => T | undefined, what: string): T {
  const value = (): T => {
    const made = get();
    if (!made) throw new Error(`useSuite(): the ${what} is made in beforeAll; read it in a test or a hook`);
    return made;
  };
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get(value(), key),
    has: (_target, key) => Reflect.has(value(), key),
    ownKeys: () => Reflect.ownKeys(value()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(value(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
