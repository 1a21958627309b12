import pino from 'pino';
import { loadConfigOrExit } from './config.js';
import { bulkLimits, openDatabase } from './db/client.js';
import { loggerOptions } from './http/observability/logging.js';
import { Jobs } from './jobs.js';
import { systemClock } from './lib/clock.js';
import { createMailTransport } from './modules/mail/index.js';
import { SealingKeyMismatch } from './modules/privacy/index.js';
import { logOutputOrExit, waitForDatabaseOrExit } from './startup.js';
import { preparePersonalData } from './upkeep.js';

// Delivers the email outbox and webhooks, and runs the reminder and retention jobs, without serving HTTP,
// so API instances and workers scale separately.
const config = loadConfigOrExit();

// The API's logger options and output: a failed query's values stay out of the worker's log too.
const log = pino(loggerOptions(config), await logOutputOrExit(config));
await waitForDatabaseOrExit(config);
// No request waits on this process, and the retention purges work in bulk.
const database = openDatabase({ ...config, databaseTimeouts: bulkLimits(config.databaseTimeouts) });
await database.migrate();
await preparePersonalData(database.db, config).catch((err: unknown) => {
  if (!(err instanceof SealingKeyMismatch)) throw err;
  console.error(err.message);
  process.exit(1);
});
const mail = createMailTransport(config, log);
const jobs = new Jobs(
  { db: database.db, bulk: database.db, config, send: mail.send, clock: systemClock, log },
  { keepProcessAlive: true },
);
jobs.start();
log.info('outbox and webhook workers, reminder and retention jobs started');

// Once, however many signals come (see server.ts).
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received, stopping the worker`);
    setTimeout(() => process.exit(1), 30_000).unref();
    jobs
      .stop()
      .then(() => mail.close())
      .then(() => database.close())
      .then(
        () => {
          log.info('stopped');
          process.exit(0);
        },
        (err: unknown) => {
          log.error({ err }, 'worker shutdown failed');
          process.exit(1);
        },
      );
  });
}
