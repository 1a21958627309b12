/**
 * `npm run seed:bench -- --size small|medium|large [--seed N] [--scale X] [--force]`: migrates the
 * PostgreSQL database of DATABASE_URL, empties it, writes the benchmark data set, then its manifest:
 * `bench/.seed.json`, or the file BENCH_MANIFEST names (one per database when several are seeded at once).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { MANIFEST_PATH as MANIFEST } from './manifest.js';
import { seed, SIZES, type Query, type Size } from './seed/index.js';
import { progressBar } from './seed/progress.js';
import { foreignData, truncateAll } from './seed/reset.js';

const USAGE =
  'Usage: npm run seed:bench -- --size small|medium|large [--seed N] [--scale X] [--force]\n' +
  '  --seed N   random seed (default 1): the same seed gives the same rows, ids included\n' +
  '  --scale X  multiplies every count of the size further (default 1)\n' +
  '  --force    empty the database even when it holds data other than a previous seed\n' +
  'The manifest goes to bench/.seed.json, or to the file BENCH_MANIFEST names (npm run bench reads the same).';
/** Batches in flight at once: the server works on one while the next is built here. */
const CONCURRENCY = 3;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function options() {
  try {
    const { values } = parseArgs({
      options: {
        size: { type: 'string' },
        seed: { type: 'string', default: '1' },
        scale: { type: 'string', default: '1' },
        force: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const size = values.size as Size | undefined;
    if (!size || !SIZES.includes(size)) fail(`--size must be one of ${SIZES.join(', ')}.\n${USAGE}`);
    const seedNumber = Number(values.seed);
    const scale = Number(values.scale);
    if (!Number.isSafeInteger(seedNumber)) fail(`--seed must be a whole number.\n${USAGE}`);
    if (!(scale > 0)) fail(`--scale must be a positive number.\n${USAGE}`);
    return { size, seed: seedNumber, scale, force: values.force };
  } catch (err) {
    return fail(`${(err as Error).message}\n${USAGE}`);
  }
}

const args = options();
const url = process.env.DATABASE_URL;
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  fail('seed:bench needs DATABASE_URL pointing at PostgreSQL; the embedded PGlite is not for benchmarks.');
}

const started = performance.now();
const database = openDatabase({ databaseUrl: url, dataDir: tmpdir() });
try {
  await database.migrate();
} finally {
  await database.close();
}

const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY });
pool.on('error', () => undefined);
const query: Query = (sql, params) => pool.query(sql, params);
try {
  const foreign = await foreignData(query);
  if (foreign.length > 0 && !args.force) {
    fail(
      `The database holds data that is not a previous benchmark seed (${foreign.join(', ')}).\n` +
        'Seeding empties every table; run again with --force to do so anyway.',
    );
  }
  await truncateAll(query);
  const manifest = await seed({ query, ...args, onProgress: progressBar(), concurrency: CONCURRENCY });
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);

  const counts = Object.entries(manifest.counts);
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  console.log(`\nSeeded ${args.size} (seed ${args.seed}):`);
  for (const [table, n] of counts)
    console.log(`  ${table.padEnd(26)} ${n.toLocaleString('en').padStart(11)}`);
  console.log(`  ${'total'.padEnd(26)} ${total.toLocaleString('en').padStart(11)}`);
  console.log(
    `Seeding took ${manifest.seconds.toFixed(1)} s ` +
      `(${((performance.now() - started) / 1000).toFixed(1)} s with migrations and truncation).`,
  );
  console.log(`Manifest: ${path.relative(process.cwd(), MANIFEST)}`);
} finally {
  await pool.end();
}
