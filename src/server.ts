import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { SealingKeyMismatch } from './modules/privacy/index.js';

const config = loadConfigOrExit();

const app = await buildApp(config).catch((err: unknown) => {
  // A PII_KEY that cannot open the data: the message says what to do, a stack would only hide it.
  if (!(err instanceof SealingKeyMismatch)) throw err;
  console.error(err.message);
  process.exit(1);
});
await app.listen({ port: config.port, host: config.host });
const where = config.baseUrl;
app.log.info(
  `MEL service on ${where} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`}); API docs at ${where}/api`,
);

// Stop taking connections, let requests in flight finish, stop the worker, close the database.
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, shutting down`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
