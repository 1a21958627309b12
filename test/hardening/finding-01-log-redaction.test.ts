/**
 * Finding 1 of issue 20: the request-log redaction matched query strings with a backtracking pattern, so
 * one anonymous 16 KB request (`/health?` then `?token` 2,650 times) froze the process for 33 s. The
 * redaction now splits the URL and reads the query's keys as URLSearchParams does; the logged URL is cut.
 * (The other patterns that see request input are held to the same bound in finding-01-input-patterns.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions, redactedUrl } from '../../src/http/observability/logging.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { call } from '../helpers/http.js';

/** Milliseconds one synchronous call takes. */
function elapsed(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

const KB = 1024;
// The backtracking version takes tens of seconds on these; let it finish so the failure is the duration.
const SLOW_BEFORE_FIX = { timeout: 180_000 };
const MAX_LOGGED_URL = 2048;
// Generous: a shared machine may pause a few hundred ms; the backtracking version takes seconds to hours.
const FUNCTION_MS = 1000;

describe('finding 1: linear request-log redaction', () => {
  describe('through the app', () => {
    let t: TestApp;
    const lines: string[] = [];
    beforeAll(async () => {
      const stream = { write: (line: string) => void lines.push(line) };
      t = await buildTestApp({}, { logger: { ...loggerOptions({ logLevel: 'info' }), stream } });
    });
    afterAll(() => t.close());

    /** The URL the app logged for the request that answered with this request id. */
    const loggedUrl = (requestId: unknown): string => {
      const entries = lines.map((line) => JSON.parse(line) as { reqId?: string; req?: { url: string } });
      const entry = entries.find((e) => e.reqId === requestId && e.req);
      if (!entry?.req) throw new Error(`no request logged with id ${String(requestId)}`);
      return entry.req.url;
    };

    it('answers the 16 KB "?token" query at once and logs it redacted and cut', SLOW_BEFORE_FIX, async () => {
      const url = `/health?token=s3cret&${'?token'.repeat(2650)}`;
      const started = performance.now();
      const res = await call(t.app, 'GET', url);
      expect(performance.now() - started).toBeLessThan(3000);
      expect(res.status).toBe(200);
      const logged = loggedUrl(res.headers['x-request-id']);
      expect(logged.startsWith('/health?token=[redacted]&?token?token')).toBe(true);
      expect(logged).not.toContain('s3cret');
      expect(logged.length).toBeLessThan(MAX_LOGGED_URL + 100);
      expect(logged).toMatch(/\[cut: \d+ characters in all\]$/);
    });

    it('redacts a link token in the path however the client encoded it', async () => {
      const token = randomUUID();
      const encoded = `%${token.charCodeAt(0).toString(16)}${token.slice(1)}`;
      const res = await call(t.app, 'GET', `/forms/public/${encoded}?lang=fr`);
      expect(res.status).toBe(404);
      expect(loggedUrl(res.headers['x-request-id'])).toBe('/forms/public/[redacted]?lang=fr');
    });
  });

  describe('redactedUrl', () => {
    const url = (u: string, params: Record<string, string> = {}) => redactedUrl({ url: u, params });

    it('redacts the values of keys containing "token" and of "code", keeping the others', () => {
      expect(url('/auth/idp/callback?token=abc&x=1&code=zz&refreshToken=q')).toBe(
        '/auth/idp/callback?token=[redacted]&x=1&code=[redacted]&refreshToken=[redacted]',
      );
    });

    it('redacts repeated, bracketed, upper-case and percent-encoded keys', () => {
      expect(url('/r?token[]=a&token=b&TOKEN=c&to%6Ben=d&co%64e=e&x=token&code&=f&&y=2')).toBe(
        '/r?token[]=[redacted]&token=[redacted]&TOKEN=[redacted]&to%6Ben=[redacted]&co%64e=[redacted]' +
          '&x=token&code&=f&&y=2',
      );
    });

    it('redacts path values of parameters named *token*, encoded or not, and only in the path', () => {
      const token = 'abc-123';
      expect(url('/invitations/abc-123/accept?next=/x', { token })).toBe(
        '/invitations/[redacted]/accept?next=/x',
      );
      expect(url('/reports/share/%61bc-123', { token })).toBe('/reports/share/[redacted]');
      expect(url('/reports/share/abc-123/attachments/abc-123', { token, attachmentId: token })).toBe(
        '/reports/share/[redacted]/attachments/[redacted]',
      );
      expect(url('/reports/share/abc-123/%E0%A4%A', { token })).toBe('/reports/share/[redacted]/%E0%A4%A');
    });

    it('cuts a long URL at 2,048 characters and says so', () => {
      const long = `/health?q=${'x'.repeat(100 * KB)}`;
      const logged = url(long);
      expect(logged).toBe(`${long.slice(0, MAX_LOGGED_URL)}...[cut: ${long.length} characters in all]`);
    });

    it('takes linear time on 100 KB adversarial URLs', SLOW_BEFORE_FIX, () => {
      const attack = '?token'.repeat(1200); // 10 s and more with the backtracking pattern
      const pad = (head: string, unit: string) => head + unit.repeat(Math.ceil((100 * KB) / unit.length));
      const inputs = [
        `/health?note=${'x'.repeat(100 * KB - attack.length - 14)}&${attack}`,
        pad('/health?', '?token'),
        pad('/health?', '&token='),
        pad('/health?', 'token[]=a&'),
        pad('/health?', 'xtokenx'),
        pad('/health?', '%'),
        pad('/health?', '='),
        pad('/health?', '&'),
        pad('/health?', '&code'),
        pad('/health?', '%74oken='),
        pad('/', 'abc/'),
      ];
      for (const input of inputs) {
        expect(input.length).toBeGreaterThanOrEqual(100 * KB);
        const ms = elapsed(() => url(input, { token: 'abc' }));
        expect(ms, `${input.slice(0, 30)}...`).toBeLessThan(FUNCTION_MS);
      }
    });
  });
});
