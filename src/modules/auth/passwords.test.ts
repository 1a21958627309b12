import { describe, expect, it } from 'vitest';
import { PasswordHasher } from './passwords.js';

describe('PasswordHasher', () => {
  it('hashes one fewer at a time than the thread pool has threads, and no more than the cores less one', async () => {
    const cases = [
      { threadPoolSize: 4, cores: 8, running: 3 },
      { threadPoolSize: 8, cores: 3, running: 2 },
      { threadPoolSize: 1, cores: 1, running: 1 },
    ];
    for (const { threadPoolSize, cores, running } of cases) {
      const hasher = new PasswordHasher({ bcryptCost: 4, threadPoolSize }, cores);
      const hashes = Array.from({ length: 5 }, () => hasher.hash('correct horse battery'));
      expect(hasher.load()).toEqual({ active: running, pending: 5 - running });
      await Promise.all(hashes);
    }
  });

  it('checks a password against its hash at the configured cost', async () => {
    const hasher = new PasswordHasher({ bcryptCost: 5, threadPoolSize: 4 });
    const hash = await hasher.hash('correct horse battery');
    expect(hash).toMatch(/^\$2b\$05\$/);
    expect(await hasher.matches('correct horse battery', hash)).toBe(true);
    expect(await hasher.matches('wrong horse battery', hash)).toBe(false);
  });
});
