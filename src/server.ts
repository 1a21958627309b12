import { buildApp } from './app.js';
import { loadConfigOrExit, plainHttpWarning } from './config.js';
import { loggerOptions } from './http/observability/logging.js';
import { SealingKeyMismatch } from './modules/privacy/index.js';
import { listenProblem, listenProblemOf, logOutputOrExit, waitForDatabaseOrExit } from './startup.js';

const config = loadConfigOrExit();

/** A start that cannot go on: its one line on stderr, exit 1. */
function refuse(line: string): never {
  console.error(line);
  process.exit(1);
}

const taken = await listenProblemOf(config);
if (taken) refuse(taken);
const stream = await logOutputOrExit(config);
await waitForDatabaseOrExit(config);

const app = await buildApp(config, { logger: { ...loggerOptions(config), stream } }).catch((err: unknown) => {
  // A PII_KEY that cannot open the data: the message says what to do, a stack would only hide it.
  if (!(err instanceof SealingKeyMismatch)) throw err;
  refuse(err.message);
});
await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
  // Taken since the check above, by a process started meanwhile.
  const problem = listenProblem(err, config);
  if (!problem) throw err;
  await app.close();
  refuse(problem);
});
const where = config.baseUrl;
app.log.info(
  `MEL service on ${where} (${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`}); API docs at ${where}/api`,
);
const warning = plainHttpWarning(config);
if (warning) app.log.warn(warning);

// Stop taking connections, let requests in flight finish, stop the worker, close the database. A signal
// may come twice (a terminal's Ctrl-C reaches npm and the server, and npm passes its own on): the second
// must not end the process before the first's shutdown has closed the database.
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received, shutting down`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    app.close().then(
      () => {
        app.log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
