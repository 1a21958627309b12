/**
 * Prints the OpenAPI document the service publishes, without a database server or a listening port:
 * the app is built on an empty in-memory PGlite (routes and schemas do not need its tables).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';

export async function openApiDocument(baseUrl = 'http://localhost:3000'): Promise<unknown> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mel-openapi-'));
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      BASE_URL: baseUrl,
      LOG_LEVEL: 'silent',
    });
    const database = openDatabase({ databaseUrl: null, dataDir, pglite: new PGlite() });
    const app = await buildApp(config, { database, worker: false, logger: false });
    try {
      await app.ready();
      return app.swagger();
    } finally {
      await app.close();
      await database.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `tsx scripts/openapi-document.ts [BASE_URL]`: the document as a service on that URL would publish it.
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify(await openApiDocument(process.argv[2]), null, 2)}\n`);
}
