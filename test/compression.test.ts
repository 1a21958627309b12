/**
 * Compression (issue 23): Brotli or gzip for the API's JSON, the OpenAPI document and documentation,
 * and CSV exports, from 1 KB on; never on small or empty answers, nor on files compressed already.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type TestUser } from './helpers/factories.js';
import { answers, formTargets, publishedForm, submissionsCsvUrl, submitUrl } from './helpers/forms.js';
import { call } from './helpers/http.js';
import { postIndicator } from './helpers/indicators.js';
import { pdf } from './helpers/route-calls.js';
import { useSuite } from './helpers/suite.js';

const { t, team } = useSuite();
function get(url: string, encoding?: string, as?: TestUser, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'GET',
    url,
    headers: {
      ...(encoding ? { 'accept-encoding': encoding } : {}),
      ...(as ? { authorization: `Bearer ${as.token}` } : {}),
      ...headers,
    },
  });
}

const decoded = (res: LightMyRequestResponse) => {
  const encoding = res.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString();
  if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString();
  return res.body;
};

describe('compressed answers', () => {
  it('sends the OpenAPI document as Brotli or gzip, decoding to the same JSON, with Vary', async () => {
    const plain = await get('/api/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(100_000);
    for (const [accepted, used] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
    ] as const) {
      const res = await get('/api/openapi.json', accepted);
      expect([res.statusCode, res.headers['content-encoding']], accepted).toEqual([200, used]);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers.etag).toBe(plain.headers.etag);
      expect(res.rawPayload.length).toBeLessThan(plain.body.length / 5);
      expect(JSON.parse(decoded(res))).toEqual(JSON.parse(plain.body));
    }
  });

  it('compresses an authenticated JSON answer over 1 KB, and leaves a small one as it is', async () => {
    for (let i = 0; i < 12; i += 1) await postIndicator(t.app, team.admin, team.org.id);
    const url = `/orgs/${team.org.id}/indicators`;
    const plain = await get(url, undefined, team.viewer);
    expect(plain.body.length).toBeGreaterThan(1024);
    const br = await get(url, 'br', team.viewer);
    expect([br.statusCode, br.headers['content-encoding'], br.headers['cache-control']]).toEqual([
      200,
      'br',
      'no-store',
    ]);
    expect(JSON.parse(decoded(br))).toEqual(JSON.parse(plain.body));

    const small = await get(`/orgs/${team.org.id}`, 'br, gzip', team.viewer);
    expect(small.body.length).toBeLessThan(1024);
    expect([small.statusCode, small.headers['content-encoding']]).toEqual([200, undefined]);
    expect(JSON.parse(small.body).id).toBe(team.org.id);
    const health = await get('/health', 'gzip');
    expect([health.headers['content-encoding'], health.body]).toEqual([undefined, '{"status":"ok"}']);
  });

  it('sends 304 and 204 empty, not encoded', async () => {
    const first = await get('/api/openapi.json', 'br');
    const again = await get('/api/openapi.json', 'br', undefined, {
      'if-none-match': String(first.headers.etag),
    });
    expect([again.statusCode, again.rawPayload.length, again.headers['content-encoding']]).toEqual([
      304,
      0,
      undefined,
    ]);
    const logout = await t.app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { authorization: `Bearer ${team.outsider.token}`, 'accept-encoding': 'br' },
    });
    expect([logout.statusCode, logout.rawPayload.length, logout.headers['content-encoding']]).toEqual([
      204,
      0,
      undefined,
    ]);
  });

  it('compresses the documentation pages', async () => {
    const index = await get('/api/', 'gzip');
    expect([index.statusCode, index.headers['content-encoding']]).toEqual([200, undefined]);
    expect(index.body.length).toBeLessThan(1024);
    for (const [url, type] of [
      ['/api/static/swagger-ui.css', /^text\/css/],
      ['/api/static/swagger-ui-bundle.js', /javascript/],
    ] as const) {
      const page = await get(url, 'gzip');
      expect([page.statusCode, page.headers['content-encoding']], url).toEqual([200, 'gzip']);
      expect(page.headers['content-type']).toMatch(type);
      expect(decoded(page).length).toBeGreaterThan(page.rawPayload.length);
    }
  });

  it('compresses a CSV export as it streams', async () => {
    const { project, period, indicator } = await formTargets(t.app, t.database.db, team.admin, team.org.id);
    const form = await publishedForm(t.app, team.admin, team.org.id, {
      projectId: project.id,
      indicatorId: indicator.id,
      reportingPeriodId: period.id,
    });
    for (let i = 0; i < 30; i += 1) {
      const res = await call(t.app, 'POST', submitUrl(form.publicToken), { body: { answers: answers() } });
      expect(res.status).toBe(201);
    }
    const url = submissionsCsvUrl(team.org.id, form.id);
    const plain = await get(url, undefined, team.admin);
    expect(plain.statusCode).toBe(200);
    expect(plain.body.split('\n').filter(Boolean)).toHaveLength(31);
    const gzip = await get(url, 'gzip', team.admin);
    expect([gzip.statusCode, gzip.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(decoded(gzip)).toBe(plain.body);
  });

  it('leaves files that are compressed already as they are', async () => {
    const { project } = await formTargets(t.app, t.database.db, team.admin, team.org.id);
    const upload = await call(t.app, 'POST', `/orgs/${team.org.id}/projects/${project.id}/attachments`, {
      as: team.admin,
      ...pdf(),
    });
    expect(upload.status).toBe(201);
    const download = await get(
      `/orgs/${team.org.id}/attachments/${upload.body.id}/download`,
      'br',
      team.admin,
    );
    expect([download.statusCode, download.headers['content-encoding']]).toEqual([200, undefined]);
    expect(download.headers['content-type']).toMatch(/^application\/pdf/);
  });
});
