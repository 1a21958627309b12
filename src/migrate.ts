import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';

const config = loadConfig();
const database = openDatabase(config);
try {
  await database.migrate();
  console.log(`Migrations applied (${database.driver}).`);
} finally {
  await database.close();
}
