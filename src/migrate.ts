import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/client.js';

const config = loadConfigOrExit();
const database = openDatabase(config);
try {
  await database.migrate();
  console.log(`Migrations applied (${database.driver}).`);
} finally {
  await database.close();
}
