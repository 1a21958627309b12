/**
 * The floor: the fastest this machine answers a request that needs a given set of SQL statements. A bare
 * Fastify app on a `pg` pool of the service's size, with no authentication, validation, serialization
 * schema, logging or rate limit: each route runs every statement the service sent for that request
 * (recorded by capture.ts, in FLOOR_SCENARIOS; the session check included), as named prepared
 * statements, and answers their rows with JSON.stringify (compressed with Brotli, or hashed for a 304,
 * when the scenario's answer is), or as naive CSV lines for an export.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import Fastify from 'fastify';
import pg from 'pg';
import type { FloorScenario } from './scenarios.js';

/** The quality the service compresses its answers at (src/http/pipeline/compression.ts). */
const BROTLI_QUALITY = 5;
const brotli = promisify(brotliCompress);

const scenarios = JSON.parse(readFileSync(process.env.FLOOR_SCENARIOS!, 'utf8')) as Record<
  string,
  FloorScenario
>;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });

const named = (sql: string) => `f${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;

/** A scenario's statements with this request's fresh ids in place of the recorded ones. */
function statementsOf(scenario: FloorScenario) {
  const fresh = new Map(scenario.freshIds.map((id) => [id, randomUUID()]));
  return scenario.statements.map(({ sql, params }) => ({
    name: named(sql),
    text: sql,
    values: fresh.size === 0 ? params : params.map((p) => (typeof p === 'string' ? (fresh.get(p) ?? p) : p)),
  }));
}

app.get('/health/ready', async () => ({ status: 'ok' }));

for (const [name, scenario] of Object.entries(scenarios)) {
  app.route({
    method: scenario.method,
    url: `/${name}`,
    handler: async (_request, reply) => {
      let body: string;
      const client = await pool.connect();
      try {
        if (scenario.transaction) await client.query('BEGIN');
        if (scenario.answer === 'stream') {
          reply.hijack();
          reply.raw.writeHead(200, { 'content-type': 'text/csv' });
          try {
            for (const statement of statementsOf(scenario)) {
              const { rows } = await client.query<Record<string, unknown>>(statement);
              const lines = rows.map((row) =>
                Object.values(row)
                  .map((v) => JSON.stringify(v))
                  .join(','),
              );
              if (lines.length > 0 && !reply.raw.write(`${lines.join('\n')}\n`)) {
                await new Promise((resolve) => reply.raw.once('drain', resolve));
              }
            }
            reply.raw.end();
          } catch (err) {
            // Headers are gone: a failed statement cuts the stream, so the runner sees the failure.
            console.error(`floor ${name}:`, err);
            reply.raw.destroy();
          }
          return;
        }
        const results = [];
        for (const statement of statementsOf(scenario)) results.push((await client.query(statement)).rows);
        if (scenario.transaction) await client.query('COMMIT');
        body = JSON.stringify(results);
      } catch (err) {
        if (scenario.transaction) await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      // The connection is back in the pool before the answer is worked on, as the service's is.
      void reply.header('content-type', 'application/json');
      if (scenario.answer === 'not-modified') {
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
        return reply.code(304).header('etag', etag).send();
      }
      if (scenario.answer === 'brotli') {
        const compressed = await brotli(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY },
        });
        return reply.header('content-encoding', 'br').send(compressed);
      }
      return reply.send(body);
    },
  });
}

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}
