import type { Method } from './load.js';
import { buildApp } from '../src/app.js';
import type { Config } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';

export interface Statement {
  sql: string;
  params: unknown[];
}

export interface CapturedRequest {
  method: Method;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Captured {
  statements: Statement[];
  status: number;
  /** The start of the body (4 KB at most). */
  body: string;
  /** When the request was sent (ms since the epoch): ids the service made for it are not older. */
  sentAt: number;
}

/**
 * Records the SQL the service sends for one request: the app is built in this process on the same
 * database with a logger that sees every statement, and the request goes over real HTTP (a CSV export
 * is streamed, not buffered). Every statement is kept, the session check of an authenticated request
 * included: the floor runs the same SQL and skips only the work around it.
 */
export async function captureStatements(
  config: Config,
  requests: Record<string, CapturedRequest>,
): Promise<Record<string, Captured>> {
  let recording: Statement[] | null = null;
  const database = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    logger: { logQuery: (sql, params) => recording?.push({ sql, params }) },
  });
  // No background job: only the request's own statements are recorded.
  const app = await buildApp(config, {
    database,
    worker: false,
    webhooks: false,
    reminders: false,
    logger: false,
  });
  const captured: Record<string, Captured> = {};
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    for (const [name, request] of Object.entries(requests)) {
      recording = [];
      const sentAt = Date.now();
      const res = await fetch(`http://127.0.0.1:${port}${request.path}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
      });
      // Read to the end, a slice at a time: a large export is never held whole.
      let body = '';
      for await (const chunk of res.body ?? []) {
        if (body.length < 4096) body += Buffer.from(chunk as Uint8Array).toString('utf8');
      }
      const statements = recording;
      recording = null;
      captured[name] = { statements, status: res.status, body, sentAt };
    }
  } finally {
    await app.close();
    await database.close();
  }
  return captured;
}
