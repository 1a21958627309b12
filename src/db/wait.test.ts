import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DatabaseUnreachable, hostAndPort, waitForPostgres } from './wait.js';

const testUrl = process.env.TEST_DATABASE_URL;

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Waits on a clock that moves only when the wait sleeps; what it reported, and how it ended. */
async function waitOn(url: string, waitSeconds: number) {
  let now = 0;
  const lines: string[] = [];
  const outcome = await waitForPostgres(url, {
    waitSeconds,
    report: (line) => lines.push(line),
    now: () => now,
    sleep: async (ms) => void (now += ms),
  }).then(
    () => 'reached',
    (err: unknown) => err,
  );
  return { lines, outcome };
}

describe('waiting for PostgreSQL at start', () => {
  it('tries again after 2 s, doubling to 10 s, until DATABASE_WAIT is spent', async () => {
    const port = await closedPort();
    const { lines, outcome } = await waitOn(`postgres://mel:pw@127.0.0.1:${port}/mel`, 30);
    const refused = `cannot reach PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): connection refused`;
    // 2 + 4 + 8 + 10 = 24 s, then the 6 s left.
    expect(lines).toEqual([2, 4, 8, 10, 6].map((s) => `${refused}; retrying in ${s} s`));
    expect(outcome).toBeInstanceOf(DatabaseUnreachable);
    expect((outcome as Error).message).toBe(`${refused}; gave up after 30 s (DATABASE_WAIT)`);
  });

  it('names host and port as the connection string gives them, never its password', () => {
    expect(hostAndPort('postgres://mel:secret@db.internal/mel')).toBe('db.internal:5432');
    expect(hostAndPort('postgresql://mel@[::1]:6432/mel')).toBe('[::1]:6432');
    expect(hostAndPort('postgres:///mel?host=/var/run/postgresql')).toBe('/var/run/postgresql:5432');
  });
});

describe.skipIf(!testUrl)('waiting for PostgreSQL, against the server', () => {
  it('returns at once when it answers', async () => {
    expect((await waitOn(testUrl!, 1)).outcome).toBe('reached');
  });

  it('does not wait out a refusal that waiting cannot mend', async () => {
    const unknownRole = new URL(testUrl!);
    unknownRole.username = 'mel_no_such_role';
    const { lines, outcome } = await waitOn(unknownRole.toString(), 30);
    expect(lines).toEqual([]);
    // Under trust the server says the role does not exist; under a password method it does not tell.
    const where = hostAndPort(testUrl!).replace(/[.[\]]/g, '\\$&');
    expect((outcome as Error).message).toMatch(
      new RegExp(
        `^cannot reach PostgreSQL at ${where} \\(DATABASE_URL\\): (role "mel_no_such_role" does not exist|` +
          'password authentication failed for user "mel_no_such_role"); not retried: check DATABASE_URL$',
      ),
    );
  });
});
