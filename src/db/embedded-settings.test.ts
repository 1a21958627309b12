import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, inject, it } from 'vitest';
import { EMBEDDED_SETTINGS, embeddedOptions } from './client.js';

// The embedded database's memory settings (docs/operations.md, "Memory"): read back from an instance
// opened with the options the service opens DATA_DIR/pglite with. The resident memory itself is measured
// by `npm run bench:memory`, never asserted here.
describe.skipIf(!inject('pgliteSnapshot'))('the embedded database', () => {
  it('runs with the small shared_buffers the service gives it, not PGlite’s 128 MB', async () => {
    expect(EMBEDDED_SETTINGS).toEqual({ shared_buffers: '16MB' });
    const pglite = new PGlite({
      ...embeddedOptions(),
      loadDataDir: new Blob([readFileSync(inject('pgliteSnapshot'))]),
    });
    try {
      const shown = async (name: string) =>
        (await pglite.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
      expect(await shown('shared_buffers')).toBe('16MB');
      expect(await shown('wal_buffers')).toBe('512kB');
      // PGlite's own start parameters are kept.
      expect(await shown('search_path')).toBe('public');
      expect(await shown('max_parallel_workers')).toBe('0');
    } finally {
      await pglite.close();
    }
  });
});
