import { defineConfig } from 'vitest/config';

/**
 * Files that run in a fresh process each (isolate), because they change process state (environment,
 * mocked clocks or globals, spies), or alter the test database's schema or close it. Files that only
 * start the compiled commands in processes of their own (start-up, start-stop, admin-create, backup) share.
 */
const ISOLATED = [
  'src/http/pipeline/idempotency-release.test.ts',
  'src/http/pipeline/session.test.ts',
  'src/lib/claim-keeper.test.ts',
  'src/modules/iati/iati.test.ts',
  'src/modules/reminders/reminders-once.test.ts',
  'src/modules/webhooks/delivery.test.ts',
  'src/modules/webhooks/webhooks.test.ts',
  'test/error-codes.test.ts',
  'test/files-migrate.test.ts',
  'test/hardening/03c-keyed-writes-marked.test.ts',
  'test/hardening/finding-10-log-personal-data.test.ts',
  'test/idempotency.test.ts',
  'test/key-rotation.test.ts',
  'test/module-graph.test.ts',
  'test/personal-data-at-rest.test.ts',
  'test/sealing-key-check.test.ts',
  'test/webhook-events.test.ts',
];

/**
 * Faults (private PostgreSQL clusters and Redis servers stopped, hung and killed; several instances),
 * the browser, and the fuzz: heavy by nature, isolated, and skipped by `npm run test:fast`.
 */
const HEAVY = [
  'test/browser/**/*.test.ts',
  'test/conditional-instances.test.ts',
  'test/container-recipe.test.ts',
  'test/database-outage.test.ts',
  'test/fuzz.test.ts',
  'test/hardening/03-keyed-request-runs-once.test.ts',
  'test/hardening/07-redis-hang.test.ts',
  'test/hardening/08-statement-timeout.test.ts',
  'test/hardening/09-replica-hang-export.test.ts',
  'test/instances.test.ts',
  'test/read-replica.test.ts',
];

/**
 * Vitest runs the projects' files in the order of the projects' names (then the larger files first, on a
 * run with no cache): heavy, isolated, shared. The long files start first and the many short ones fill
 * the end, so both workers finish close together.
 *
 * Two workers on these 2-core machines (Vitest's default is one fewer than the cores; three measured
 * slower, 354 s against 331 s on PGlite: the run is CPU-bound). The rest of the
 * files share one module graph per worker (isolate: false): each file is then spared loading the service
 * again, and `buildTestApp()` without overrides hands it the worker's app (test/helpers/app.ts).
 */
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...ISOLATED, ...HEAVY],
          isolate: false,
          env: { MEL_TEST_SHARED: '1' },
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED },
      },
      {
        extends: true,
        test: { name: 'heavy', include: HEAVY },
      },
    ],
  },
});
