/**
 * Finding 10 of issue 20: the parameters of a failed query were redacted from `err.params` only, while
 * Drizzle repeats them in `err.message` and `err.stack` and PostgreSQL quotes row values in `detail`
 * (and in the messages of data errors). A failing insert holding an email and a phone number is logged
 * here, through the app's logger options and through the app, and neither may appear in the log.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { loggerOptions } from '../../src/http/observability/logging.js';
import { participants } from '../../src/modules/activities/activities.tables.js';
import { users } from '../../src/modules/auth/auth.tables.js';
import { buildTestApp, openTestDatabase, type TestApp } from '../helpers/app.js';
import { createTeam } from '../helpers/factories.js';
import { call } from '../helpers/http.js';

const PHONE = '+254712345678';
const email = () => `amina-${randomUUID().slice(0, 8)}@example.org`;

/** A logger with the app's options, writing into a string. */
function capture() {
  const lines: string[] = [];
  const log = pino(loggerOptions({ logLevel: 'info' }), { write: (line: string) => void lines.push(line) });
  return { log, text: () => lines.join('') };
}

async function failure(work: () => Promise<unknown>): Promise<Error & { cause?: any }> {
  try {
    await work();
  } catch (err) {
    return err as Error;
  }
  throw new Error('the statement did not fail');
}

describe('finding 10: no personal data in logs', () => {
  describe("with the app's logger options", () => {
    let database: Database;
    beforeAll(async () => {
      database = await openTestDatabase();
    });
    afterAll(() => database.close());

    const participant = (values: Partial<typeof participants.$inferInsert>) =>
      database.db.insert(participants).values({
        orgId: randomUUID(),
        firstName: 'Amina',
        lastName: 'Okafor',
        sex: 'female',
        village: 'Kibera',
        district: 'Nairobi',
        ...values,
      });

    it('logs a duplicate user without the email, keeping the query and the database’s reason', async () => {
      const address = email();
      await database.db.insert(users).values({ email: address, firstName: 'Amina', lastName: PHONE });
      const err = await failure(() =>
        database.db.insert(users).values({ email: address, firstName: 'Amina', lastName: PHONE }),
      );
      // The error itself holds both, in the places the finding names.
      for (const place of [err.message, err.stack, err.cause.detail]) expect(place).toContain(address);
      expect(err.message).toContain(PHONE);

      const { log, text } = capture();
      log.error({ err }, 'request failed');
      log.error({ err: err.cause }, 'cause alone');
      log.error(err);
      expect(text()).not.toContain(address);
      expect(text()).not.toContain(PHONE);
      const logged = JSON.parse(text().split('\n')[0]!) as { err: Record<string, string> };
      expect(logged.err.message).toContain('Failed query: insert into "users"');
      expect(logged.err.message).toContain('params: [redacted]');
      expect(logged.err.message).toContain(
        'duplicate key value violates unique constraint "users_email_unique"',
      );
      expect(logged.err.stack).toMatch(/\n {4}at /);
    });

    it('logs a participant row refused by a not-null column without the phone', async () => {
      const err = await failure(() => participant({ phone: PHONE, village: null as unknown as string }));
      expect(err.cause.detail).toContain(PHONE);
      const { log, text } = capture();
      log.error({ err }, 'request failed');
      log.error({ err: err.cause }, 'cause alone');
      expect(text()).not.toContain(PHONE);
      expect(text()).toContain('violates not-null constraint');
    });

    it('logs a data error without the value PostgreSQL quotes in its message', async () => {
      const address = email();
      const err = await failure(() => participant({ dateOfBirth: address, phone: PHONE }));
      expect(err.cause.message).toContain(address);
      const { log, text } = capture();
      log.error({ err }, 'request failed');
      log.error({ err: err.cause }, 'cause alone');
      expect(text()).not.toContain(address);
      expect(text()).not.toContain(PHONE);
      expect(text()).toContain('invalid input syntax for type date: [redacted]');
    });
  });

  describe('through the app', () => {
    let database: Database;
    let t: TestApp;
    const lines: string[] = [];
    beforeAll(async () => {
      database = await openTestDatabase();
      // An insert the service cannot foresee failing, as a race or a bug would: its 500 is logged.
      await database.db.execute(
        sql.raw(`ALTER TABLE donors ADD CONSTRAINT test_refused CHECK (name <> 'Refused donor')`),
      );
      const stream = { write: (line: string) => void lines.push(line) };
      t = await buildTestApp({}, { database, logger: { ...loggerOptions({ logLevel: 'info' }), stream } });
    });
    afterAll(async () => {
      await t.close();
      await database.close();
    });

    /** What the completion line of a request says of it. */
    const completion = (requestId: unknown) => {
      const line = lines
        .map((text) => JSON.parse(text) as Record<string, any>)
        .find((entry) => entry.reqId === requestId && entry.msg === 'request completed');
      expect(line?.responseTime).toEqual(expect.any(Number));
      return line && { ...line.req, remoteAddress: undefined, statusCode: line.res.statusCode };
    };

    it('logs a failed insert of a donor contact without the email or the phone', async () => {
      const team = await createTeam(t.app, t.database.db);
      const address = email();
      const body = {
        name: 'Refused donor',
        code: 'RD',
        type: 'ngo',
        contactEmail: address,
        notes: `Call ${PHONE}`,
      };
      const res = await call(t.app, 'POST', `/orgs/${team.org.id}/donors`, { as: team.admin, body });
      expect([res.status, res.body]).toEqual([
        500,
        {
          statusCode: 500,
          message: 'Internal server error',
          error: 'Internal Server Error',
          code: 'internal_error',
        },
      ]);
      const failed = lines.filter((line) => line.includes('"request failed"'));
      expect(failed).toHaveLength(1);
      expect(failed[0]).toContain('violates check constraint');
      // The completion line (issue 39) names the request and its 500, and nothing of its body.
      expect(completion(res.headers['x-request-id'])).toEqual({
        method: 'POST',
        route: '/orgs/:orgId/donors',
        url: `/orgs/${team.org.id}/donors`,
        statusCode: 500,
      });
      expect(lines.join('')).not.toContain(address);
      expect(lines.join('')).not.toContain(PHONE);
    });

    it('logs a participant search without the name, phone or national id searched for', async () => {
      const team = await createTeam(t.app, t.database.db);
      for (const query of [
        'search=Wanjiku%20Kamau',
        `search=${encodeURIComponent(PHONE)}`,
        'Search[]=KE-123-ID',
      ]) {
        const res = await call(t.app, 'GET', `/orgs/${team.org.id}/participants?${query}&page=1`, {
          as: team.admin,
        });
        expect(res.status).toBe(200);
        const key = query.slice(0, query.indexOf('='));
        expect(completion(res.headers['x-request-id'])).toEqual({
          method: 'GET',
          route: '/orgs/:orgId/participants',
          url: `/orgs/${team.org.id}/participants?${key}=[redacted]&page=1`,
          statusCode: 200,
        });
      }
      const logged = lines.join('');
      expect(logged).toContain('search=[redacted]&page=1');
      for (const secret of ['Wanjiku', '712345678', 'KE-123-ID']) expect(logged).not.toContain(secret);
    });
  });
});
