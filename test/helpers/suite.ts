import type { TestApp } from './app.js';
import type { Team } from './factories.js';

/**
 * A test file's app and team as its beforeAll left them. Scenes shared by several files are bound at import,
 * before either exists, so they take this and read it only when a test calls them.
 */
export type Suite<T extends TestApp = TestApp> = () => { t: T; team: Team };
