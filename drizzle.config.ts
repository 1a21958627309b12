import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  // The storage's own tables (files kept in the database) beside the modules'.
  schema: ['./src/modules/*/*.tables.ts', './src/storage/*.tables.ts'],
  out: './src/db/migrations',
});
