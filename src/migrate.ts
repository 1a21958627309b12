import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';
import { waitForDatabaseOrExit } from './startup.js';

const config = loadConfigOrExit();
await waitForDatabaseOrExit(config);
const database = openDatabase(config);
try {
  await database.migrate();
  console.log(`Migrations applied (${database.driver}).`);
} finally {
  await database.close();
}
