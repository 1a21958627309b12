/**
 * Issue 39, "Logs a person can read": one line a request at info, its completion, carrying the method,
 * the route's template, the URL (link tokens and secret query values redacted), the status and the time
 * in ms; the line on arrival only at debug.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../src/http/observability/logging.js';
import { buildTestApp } from './helpers/app.js';
import { createProject, createTeam } from './helpers/factories.js';
import { call } from './helpers/http.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method: string; route?: string; url: string; remoteAddress: string };
  res?: { statusCode: number };
  responseTime?: number;
}

/** An app logging at `level` into a list of parsed lines. */
async function logged(level: string) {
  const lines: Line[] = [];
  const stream = { write: (text: string) => void lines.push(JSON.parse(text) as Line) };
  const t = await buildTestApp({}, { logger: { ...loggerOptions({ logLevel: level }), stream } });
  const of = (res: { headers: Record<string, unknown> }) =>
    lines.filter((line) => line.reqId === res.headers['x-request-id']);
  return { t, lines, of };
}

describe('the request log at info', () => {
  let app: Awaited<ReturnType<typeof logged>>;
  beforeAll(async () => {
    app = await logged('info');
  });
  afterAll(() => app.t.close());

  it('is one completion line carrying method, route template, URL, status and time', async () => {
    const team = await createTeam(app.t.app, app.t.database.db);
    const project = await createProject(app.t.database.db, team.org.id);
    const url = `/orgs/${team.org.id}/projects/${project.id}`;
    const res = await call(app.t.app, 'GET', url, { as: team.admin });
    expect(res.status).toBe(200);
    const lines = app.of(res);
    expect(lines).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId: res.headers['x-request-id'],
        req: { method: 'GET', route: '/orgs/:orgId/projects/:id', url, remoteAddress: '127.0.0.1' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: 'request completed',
      },
    ]);
    // In ms, to a tenth.
    expect(lines[0]!.responseTime! * 10).toBe(Math.round(lines[0]!.responseTime! * 10));
  });

  it('names the status of a refusal, and has no route where none matched', async () => {
    const refused = await call(app.t.app, 'POST', '/auth/login', { body: {} });
    expect(refused.status).toBe(400);
    expect(app.of(refused).find((line) => line.msg === 'request completed')).toMatchObject({
      req: { method: 'POST', route: '/auth/login', url: '/auth/login' },
      res: { statusCode: 400 },
    });

    const unknown = await call(app.t.app, 'GET', '/no/such/path?x=1');
    expect(unknown.status).toBe(404);
    const [line] = app.of(unknown);
    expect(line).toMatchObject({
      req: { method: 'GET', url: '/no/such/path?x=1' },
      res: { statusCode: 404 },
    });
    expect(line!.req).not.toHaveProperty('route');
  });

  it('redacts link tokens in paths (form and share pages too) and secret query values', async () => {
    const token = randomUUID();
    for (const [path, route, redacted] of [
      [`/f/${token}?lang=fr`, '/f/:token', '/f/[redacted]?lang=fr'],
      [`/r/${token}`, '/r/:token', '/r/[redacted]'],
      [`/forms/public/${token}`, '/forms/public/:token', '/forms/public/[redacted]'],
      [
        `/auth/idp/callback?code=${token}&state=s1`,
        '/auth/idp/callback',
        '/auth/idp/callback?code=[redacted]&state=s1',
      ],
    ] as const) {
      const res = await call(app.t.app, 'GET', path, { headers: { accept: 'text/html' } });
      const [line] = app.of(res);
      expect(line, path).toMatchObject({ req: { method: 'GET', route }, res: { statusCode: res.status } });
      if (redacted) expect(line!.req!.url).toBe(redacted);
      expect(JSON.stringify(line), path).not.toContain(token.slice(0, 8));
    }
  });
});

describe('the request log at debug', () => {
  it('adds a line as each request arrives, before its completion', async () => {
    const app = await logged('debug');
    try {
      const res = await call(app.t.app, 'GET', '/health');
      expect(app.of(res).map((line) => [line.level, line.msg, line.req?.route])).toEqual([
        [20, 'incoming request', '/health'],
        [30, 'request completed', '/health'],
      ]);
    } finally {
      await app.t.close();
    }
  });
});
