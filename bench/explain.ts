/**
 * `npm run bench:explain -- [--only assembly,dashboard] [--plans]`: records the SQL the service sends for
 * each scenario (as the bench does) and runs every statement under EXPLAIN ANALYZE on the seeded
 * database, inside a transaction that is rolled back. Prints each statement's execution time, and its
 * plan with --plans: where a slow request spends its time in the database. `quality` records one save
 * of each side of that comparison (committed, as the bench's saves are).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { BENCH_PII_KEY } from './seed/participants.js';
import { captureStatements, type CapturedRequest } from './capture.js';
import { readManifest } from './manifest.js';
import { qualitySaves } from './quality.js';
import { scenarios } from './scenarios.js';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'assembly,dashboard' },
    plans: { type: 'boolean', default: false },
  },
});
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl || !/^postgres(ql)?:/.test(databaseUrl)) {
  console.error('bench:explain needs DATABASE_URL pointing at the PostgreSQL seeded by `npm run seed:bench`');
  process.exit(1);
}

const manifest = readManifest();
const config = loadConfig({
  ...process.env,
  NODE_ENV: 'production',
  JWT_SECRET: process.env.JWT_SECRET ?? 'bench-explain-secret-bench-explain-secret',
  PII_KEY: process.env.PII_KEY ?? BENCH_PII_KEY,
});
const signIn = await captureStatements(config, {
  token: {
    method: 'POST',
    path: '/auth/token',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(manifest.admin),
  },
});
const { accessToken } = JSON.parse(signIn.token!.body) as { accessToken: string };
// No stored report is made here: the scenarios that read one are not for this tool.
const chosen = scenarios(manifest, accessToken, { id: '', etag: '' }).filter((s) =>
  args.only.split(',').includes(s.name),
);
const requests: Record<string, CapturedRequest> = Object.fromEntries(chosen.map((s) => [s.name, s.request]));
const titles: Record<string, string> = Object.fromEntries(chosen.map((s) => [s.name, s.title]));
if (args.only.split(',').includes('quality')) {
  // The quality comparison's two saves: checks on (`quality`) and off (`quality-off`).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    Object.assign(requests, await qualitySaves(manifest, pool, { authorization: `Bearer ${accessToken}` }));
  } finally {
    await pool.end();
  }
  titles.quality = 'save a value, rules + outlier check';
  titles['quality-off'] = 'save a value, checks off';
}
const captured = await captureStatements(config, requests);

const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
try {
  for (const [name, title] of Object.entries(titles)) {
    const { statements, status } = captured[name]!;
    console.log(`\n${title}: HTTP ${status}, ${statements.length} statements`);
    await client.query('BEGIN');
    for (const statement of statements) {
      if (/^(begin|commit|rollback)/i.test(statement.sql.trim())) continue;
      await client.query('SAVEPOINT statement');
      const plan = await client
        .query<{ 'QUERY PLAN': string }>({
          text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
          values: statement.params,
        })
        .then(
          ({ rows }) => rows.map((row) => row['QUERY PLAN']),
          // The recorded write already ran once (a created row's id is taken): say so and go on.
          async (error: Error) => {
            await client.query('ROLLBACK TO SAVEPOINT statement');
            return [`Execution Time: failed (${error.message})`];
          },
        );
      const time = plan.find((line) => line.startsWith('Execution Time'))?.replace('Execution Time: ', '');
      console.log(`  ${time?.padStart(12)}  ${statement.sql.replace(/\s+/g, ' ').slice(0, 110)}`);
      if (args.plans) console.log(plan.map((line) => `      ${line}`).join('\n'));
    }
    await client.query('ROLLBACK');
  }
} finally {
  await client.end();
}
