import { describe, expect, it } from 'vitest';
import { logOutput, LogOutputUnavailable, PRETTY_OPTIONS, prettyMessage } from './log-output.js';

describe('LOG_FORMAT=pretty', () => {
  it('refuses to start, saying what to do, when pino-pretty is not installed', async () => {
    const missing = () =>
      Promise.reject(
        Object.assign(new Error("Cannot find package 'pino-pretty'"), { code: 'ERR_MODULE_NOT_FOUND' }),
      );
    const refusal = logOutput({ logFormat: 'pretty' }, missing);
    await expect(refusal).rejects.toBeInstanceOf(LogOutputUnavailable);
    await expect(refusal).rejects.toThrow(
      'LOG_FORMAT=pretty needs the pino-pretty package, which is not installed here: install the ' +
        'dependencies again (npm ci), or set LOG_FORMAT=json',
    );
  });

  it('passes on any other failure to load it as it is', async () => {
    const broken = () => Promise.reject(new SyntaxError('Unexpected token'));
    await expect(logOutput({ logFormat: 'pretty' }, broken)).rejects.toThrow(SyntaxError);
  });

  it('hands pino-pretty the synchronous stdout and the message format', async () => {
    let given: Record<string, unknown> | undefined;
    const stream = { write: () => undefined };
    const pretty = (options: Record<string, unknown>) => ((given = options), stream);
    expect(await logOutput({ logFormat: 'pretty' }, () => Promise.resolve({ default: pretty }))).toBe(stream);
    expect(given).toMatchObject({
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,reqId,req,res,responseTime',
      messageFormat: prettyMessage,
    });
    expect(given!.destination).toMatchObject({ fd: 1, sync: true });
  });

  it('renders a completed request as one line with the installed pino-pretty', async () => {
    await expect(logOutput({ logFormat: 'pretty' })).resolves.toHaveProperty('write');
    const { prettyFactory } = await import('pino-pretty');
    const format = prettyFactory({ ...PRETTY_OPTIONS, colorize: false });
    const line = format({
      level: 30,
      time: Date.UTC(2026, 10, 28, 9, 30, 5, 120),
      pid: 1,
      hostname: 'mel-1',
      msg: 'request completed',
      reqId: 'r-1',
      req: { method: 'GET', route: '/orgs/:orgId', url: '/orgs/o1' },
      res: { statusCode: 200 },
      responseTime: 3.2,
    });
    expect(line).toMatch(
      /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/orgs\/o1 200 3\.2 ms route=\/orgs\/:orgId reqId=r-1\n$/,
    );
  });

  it('is never loaded for JSON', async () => {
    const load = () => Promise.reject(new Error('loaded'));
    expect(await logOutput({ logFormat: 'json' }, load)).toMatchObject({ fd: 1, sync: true });
  });
});

describe('a pretty line', () => {
  const completed = {
    msg: 'request completed',
    reqId: 'r-1',
    req: {
      method: 'GET',
      route: '/orgs/:orgId/projects/:id',
      url: '/orgs/o1/projects/p1',
      remoteAddress: '::1',
    },
    res: { statusCode: 200 },
    responseTime: 12.5,
  };

  it('reads a request: method, URL, status, time, then its route and id', () => {
    expect(prettyMessage(completed, 'msg')).toBe(
      'GET /orgs/o1/projects/p1 200 12.5 ms route=/orgs/:orgId/projects/:id reqId=r-1',
    );
    expect(prettyMessage({ ...completed, msg: 'request errored', res: { statusCode: 500 } }, 'msg')).toBe(
      'GET /orgs/o1/projects/p1 500 12.5 ms (request errored) route=/orgs/:orgId/projects/:id reqId=r-1',
    );
    const unmatched = { ...completed, req: { method: 'GET', url: '/nowhere' }, res: { statusCode: 404 } };
    expect(prettyMessage(unmatched, 'msg')).toBe('GET /nowhere 404 12.5 ms reqId=r-1');
  });

  it('keeps any other message, with the request it concerns', () => {
    expect(prettyMessage({ msg: 'MEL service on http://localhost:3000' }, 'msg')).toBe(
      'MEL service on http://localhost:3000',
    );
    expect(
      prettyMessage({ msg: 'request failed', reqId: 'r-2', req: { method: 'POST', url: '/x' } }, 'msg'),
    ).toBe('request failed POST /x reqId=r-2');
    expect(prettyMessage({ err: { message: 'boom' } }, 'msg')).toBe('');
  });
});
