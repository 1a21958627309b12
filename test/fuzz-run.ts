/**
 * `npm run fuzz -- --requests 100000 [--seed N]`: the fuzz suite (fuzz.test.ts) with more requests, through
 * Vitest (the suite's database comes from its global setup). Add TEST_DATABASE_URL for PostgreSQL.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '100000' }, seed: { type: 'string' } },
});
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests < 1) {
  console.error('--requests must be a positive whole number');
  process.exit(1);
}
const result = spawnSync('npx', ['vitest', 'run', 'test/fuzz.test.ts'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    FUZZ_REQUESTS: String(requests),
    ...(values.seed ? { FUZZ_SEED: values.seed } : {}),
  },
});
process.exit(result.status ?? 1);
