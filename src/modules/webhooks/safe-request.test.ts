import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkAddress,
  refusalOf,
  RESPONSE_LIMIT,
  safePost,
  systemResolve,
  type Resolve,
} from './safe-request.js';

// A self-signed certificate for hook.example.test (EC P-256, valid until 2126), made with
// openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500 -addext subjectAltName=DNS:hook.example.test
const HOOK_CERT = `-----BEGIN CERTIFICATE-----
MIIBrTCCAVOgAwIBAgIUUiGdurxY+TPzMx4xcr3qnf/kwGQwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRaG9vay5leGFtcGxlLnRlc3QwIBcNMjYxMTI2MTUyNjM1WhgP
MjEyNjExMDIxNTI2MzVaMBwxGjAYBgNVBAMMEWhvb2suZXhhbXBsZS50ZXN0MFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEgSqjzZCwFVrKUIWgLYMxpOHS5T1Rar4l
DY648Qo+PqK90ltUGk02KIykVcDUYquCHlw8quLTxjr+J5v6QaNGfqNxMG8wHQYD
VR0OBBYEFCXD4TlUZAernfVtBwkoDdWiWVbHMB8GA1UdIwQYMBaAFCXD4TlUZAer
nfVtBwkoDdWiWVbHMA8GA1UdEwEB/wQFMAMBAf8wHAYDVR0RBBUwE4IRaG9vay5l
eGFtcGxlLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIhAN5ygCHCxaqJXGj0VjUPnYgV
o8qkm8BWdfY2QDGxAPuhAiAe1WZOpEHimNw59eIE79fg9vrP3vnM6hbHczET2eTf
UQ==
-----END CERTIFICATE-----`;
const HOOK_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3mbkzbgJxCY+O5Xd
cy8s8C5hkt33R3TX6jBv77OXMnOhRANCAASBKqPNkLAVWspQhaAtgzGk4dLlPVFq
viUNjrjxCj4+or3SW1QaTTYojKRVwNRiq4IeXDyq4tPGOv4nm/pBo0Z+
-----END PRIVATE KEY-----`;

describe('which addresses a webhook may go to', () => {
  it.each([
    ['93.184.216.34', 4, '93.184.216.34'],
    ['2606:4700::1111', 6, '2606:4700::1111'],
    ['::ffff:93.184.216.34', 4, '93.184.216.34'],
  ])('%s is public unicast', (address, family, canonical) => {
    expect(checkAddress(address)).toEqual({ address: canonical, family, range: 'unicast' });
    expect(refusalOf([{ address }], { allowPrivate: false })).toBeNull();
  });

  it.each([
    ['10.0.0.5', 'refused: private address 10.0.0.5'],
    ['172.16.3.4', 'refused: private address 172.16.3.4'],
    ['192.168.1.1', 'refused: private address 192.168.1.1'],
    ['127.0.0.1', 'refused: loopback address 127.0.0.1'],
    ['127.8.9.10', 'refused: loopback address 127.8.9.10'],
    ['::1', 'refused: loopback address ::1'],
    ['169.254.169.254', 'refused: link local address 169.254.169.254'],
    ['fe80::1', 'refused: link local address fe80::1'],
    ['::ffff:127.0.0.1', 'refused: loopback address ::ffff:127.0.0.1'],
    ['::ffff:10.1.2.3', 'refused: private address ::ffff:10.1.2.3'],
    ['::ffff:169.254.169.254', 'refused: link local address ::ffff:169.254.169.254'],
    ['0.0.0.0', 'refused: unspecified address 0.0.0.0'],
    ['::', 'refused: unspecified address ::'],
    ['100.64.0.1', 'refused: carrier grade nat address 100.64.0.1'],
    ['fd12:3456::1', 'refused: unique local address fd12:3456::1'],
    ['224.0.0.1', 'refused: multicast address 224.0.0.1'],
    ['255.255.255.255', 'refused: broadcast address 255.255.255.255'],
    ['192.0.2.1', 'refused: reserved address 192.0.2.1'],
    ['64:ff9b::7f00:1', 'refused: rfc6052 address 64:ff9b::7f00:1'],
    ['2002:7f00:1::', 'refused: 6to4 address 2002:7f00:1::'],
    ['not-an-address', 'refused: not an address not-an-address'],
  ])('%s is refused', (address, reason) => {
    expect(refusalOf([{ address }], { allowPrivate: false })).toBe(reason);
  });

  it('refuses an answer of which any address is not public, and an empty answer', () => {
    expect(refusalOf([{ address: '93.184.216.34' }, { address: '10.0.0.1' }], { allowPrivate: false })).toBe(
      'refused: private address 10.0.0.1',
    );
    expect(refusalOf([], { allowPrivate: false })).toBe('refused: no address');
    expect(refusalOf([], { allowPrivate: true })).toBe('refused: no address');
  });

  it('lets private addresses through with WEBHOOK_ALLOW_PRIVATE, but http only to loopback', () => {
    expect(refusalOf([{ address: '10.0.0.5' }, { address: '::1' }], { allowPrivate: true })).toBeNull();
    expect(
      refusalOf([{ address: '127.0.0.1' }, { address: '::1' }], { allowPrivate: true, loopbackOnly: true }),
    ).toBeNull();
    expect(
      refusalOf([{ address: '127.0.0.1' }, { address: '10.0.0.5' }], {
        allowPrivate: true,
        loopbackOnly: true,
      }),
    ).toBe('refused: http to non-loopback 10.0.0.5');
  });
});

/** A receiver on loopback that counts connections, so a test sees that none was even opened. */
async function listen(server: http.Server | https.Server) {
  let connections = 0;
  server.on(server instanceof https.Server ? 'secureConnection' : 'connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, connections: () => connections };
}

const servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A resolver that answers `addresses` for any name and remembers what it was asked. */
function answering(...addresses: string[]): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    return addresses.map((address) => ({
      address,
      family: address.includes(':') ? (6 as const) : (4 as const),
    }));
  };
  return Object.assign(resolve, { asked });
}

const message = { headers: { 'content-type': 'application/json' }, body: '{"type":"ping"}' };
const open = { allowPrivate: true, timeoutMs: 2000 };
const closed = { allowPrivate: false, timeoutMs: 2000 };

describe('safePost', () => {
  it('posts to the checked address under the host name, and keeps the first 1 KB of the answer', async () => {
    const seen: { host?: string; body: string; url?: string }[] = [];
    const receiver = await listen(
      http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          seen.push({ host: req.headers.host, body, url: req.url });
          res.writeHead(202).end('x'.repeat(5000));
        });
      }),
    );
    const resolve = answering('127.0.0.1');
    const outcome = await safePost(`http://hook.example.test:${receiver.port}/in?a=1`, message, {
      ...open,
      resolve,
    });
    expect(outcome).toMatchObject({ statusCode: 202, error: null, response: 'x'.repeat(RESPONSE_LIMIT) });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    // hook.example.test has no DNS record: the request reached the receiver through the checked address only.
    expect(seen).toEqual([
      { host: `hook.example.test:${receiver.port}`, body: message.body, url: '/in?a=1' },
    ]);
    expect(resolve.asked).toEqual(['hook.example.test']);
  });

  it('stops reading an endless answer after 1 KB', async () => {
    const receiver = await listen(
      http.createServer((_req, res) => {
        res.writeHead(200);
        const more = () => res.write('y'.repeat(512), () => setTimeout(more, 5));
        more();
      }),
    );
    const outcome = await safePost(`http://127.0.0.1:${receiver.port}/`, message, {
      ...open,
      resolve: answering(),
    });
    expect(outcome).toMatchObject({ statusCode: 200, error: null, response: 'y'.repeat(RESPONSE_LIMIT) });
    expect(outcome.durationMs).toBeLessThan(1000);
  });

  it('speaks TLS to the checked address with the host name for SNI and the certificate check', async () => {
    const names: (string | false | null)[] = [];
    const server = https.createServer({ cert: HOOK_CERT, key: HOOK_KEY }, (_req, res) => res.end('ok'));
    server.on('secureConnection', (socket) => names.push(socket.servername));
    const receiver = await listen(server);
    const url = `https://hook.example.test:${receiver.port}/`;

    const trusted = await safePost(url, message, { ...open, resolve: answering('127.0.0.1'), ca: HOOK_CERT });
    expect(trusted).toMatchObject({ statusCode: 200, error: null, response: 'ok' });
    expect(names).toEqual(['hook.example.test']);

    // The certificate is checked: unknown issuer, or a name it was not made for, and nothing is sent.
    const untrusted = await safePost(url, message, { ...open, resolve: answering('127.0.0.1') });
    expect(untrusted).toMatchObject({
      statusCode: null,
      response: null,
      error: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    const otherName = await safePost(`https://other.example.test:${receiver.port}/`, message, {
      ...open,
      resolve: answering('127.0.0.1'),
      ca: HOOK_CERT,
    });
    expect(otherName).toMatchObject({ statusCode: null, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('refuses loopback, private and link-local targets without connecting', async () => {
    const receiver = await listen(http.createServer((_req, res) => res.end('reached')));
    const port = receiver.port;
    const cases: [string, Resolve, string][] = [
      [`https://127.0.0.1:${port}/`, answering(), 'refused: loopback address 127.0.0.1'],
      [`https://[::1]:${port}/`, answering(), 'refused: loopback address ::1'],
      [`https://[::ffff:127.0.0.1]:${port}/`, answering(), 'refused: loopback address ::ffff:7f00:1'],
      [`https://2130706433:${port}/`, answering(), 'refused: loopback address 127.0.0.1'],
      [`https://localhost:${port}/`, systemResolve, 'refused: loopback address'],
      [`https://hook.example.test:${port}/`, answering('127.0.0.1'), 'refused: loopback address 127.0.0.1'],
      [
        `https://hook.example.test:${port}/`,
        answering('::ffff:127.0.0.1'),
        'refused: loopback address ::ffff:127.0.0.1',
      ],
      [`https://internal.example.test:${port}/`, answering('10.0.0.5'), 'refused: private address 10.0.0.5'],
      [
        `https://metadata.example.test/`,
        answering('169.254.169.254'),
        'refused: link local address 169.254.169.254',
      ],
      [`https://nothing.example.test/`, answering(), 'refused: no address'],
    ];
    for (const [url, resolve, reason] of cases) {
      const outcome = await safePost(url, message, { ...closed, resolve });
      expect(outcome, url).toMatchObject({ statusCode: null, response: null });
      expect(outcome.error, url).toContain(reason);
    }
    expect(receiver.connections()).toBe(0);
  });

  it('refuses http: unless private targets are allowed and every address is loopback', async () => {
    const receiver = await listen(http.createServer((_req, res) => res.end('reached')));
    const resolve = answering('127.0.0.1');
    const plain = await safePost(`http://hook.example.test:${receiver.port}/`, message, {
      ...closed,
      resolve,
    });
    expect(plain).toMatchObject({ statusCode: null, error: 'refused: http is not https' });
    expect(resolve.asked).toEqual([]);

    const outward = await safePost(`http://hook.example.test:${receiver.port}/`, message, {
      ...open,
      resolve: answering('93.184.216.34'),
    });
    expect(outward).toMatchObject({ statusCode: null, error: 'refused: http to non-loopback 93.184.216.34' });
    const other = await safePost(`ftp://hook.example.test/`, message, { ...open, resolve });
    expect(other).toMatchObject({ statusCode: null, error: 'refused: scheme ftp:' });
    expect(receiver.connections()).toBe(0);
  });

  it('does not follow redirects', async () => {
    const target = await listen(http.createServer((_req, res) => res.end('moved here')));
    const redirecting = await listen(
      http.createServer((_req, res) =>
        res.writeHead(307, { location: `http://127.0.0.1:${target.port}/` }).end(),
      ),
    );
    const outcome = await safePost(`http://127.0.0.1:${redirecting.port}/`, message, {
      ...open,
      resolve: answering(),
    });
    expect(outcome).toMatchObject({ statusCode: 307, error: 'HTTP 307', response: '' });
    expect(target.connections()).toBe(0);
  });

  it('gives up at the timeout when no answer starts, and takes a 2xx whose body never ends', async () => {
    const silent = await listen(http.createServer(() => undefined));
    const started = Date.now();
    const never = await safePost(`http://127.0.0.1:${silent.port}/`, message, {
      ...open,
      timeoutMs: 200,
      resolve: answering(),
    });
    expect(never).toMatchObject({ statusCode: null, response: null, error: 'timeout' });
    expect(never.durationMs).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(1500);

    const stalling = await listen(http.createServer((_req, res) => res.writeHead(200).write('partial')));
    const unfinished = await safePost(`http://127.0.0.1:${stalling.port}/`, message, {
      ...open,
      timeoutMs: 200,
      resolve: answering(),
    });
    // The receiver said 2xx: it has the event, and sending it again would deliver it twice.
    expect(unfinished).toMatchObject({ statusCode: 200, response: 'partial', error: null });

    const stallingError = await listen(http.createServer((_req, res) => res.writeHead(503).write('wait')));
    const unfinishedError = await safePost(`http://127.0.0.1:${stallingError.port}/`, message, {
      ...open,
      timeoutMs: 200,
      resolve: answering(),
    });
    expect(unfinishedError).toMatchObject({ statusCode: 503, response: null, error: 'timeout' });

    // The lookup is cancelled at the deadline (the system resolver's queries are).
    let aborted = false;
    const slowDns: Resolve = (_host, signal) =>
      new Promise(() => signal?.addEventListener('abort', () => (aborted = true)));
    const lookup = await safePost('https://slow.example.test/', message, {
      ...open,
      timeoutMs: 100,
      resolve: slowDns,
    });
    expect(lookup).toMatchObject({ statusCode: null, error: 'timeout' });
    expect(aborted).toBe(true);
  });

  it('refuses IPv4-compatible IPv6 addresses, which ipaddr.js calls unicast', () => {
    expect(refusalOf([{ address: '::7f00:1' }], { allowPrivate: false })).toBe(
      'refused: reserved address ::7f00:1',
    );
    expect(refusalOf([{ address: '::a9fe:a9fe' }], { allowPrivate: false })).toMatch(/^refused: reserved/);
    expect(refusalOf([{ address: '2606:4700::1111' }], { allowPrivate: false })).toBeNull();
  });

  it('names connection and DNS errors by their code, and drops NUL from the recorded answer', async () => {
    const gone = await listen(http.createServer());
    const port = gone.port;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const refused = await safePost(`http://127.0.0.1:${port}/`, message, { ...open, resolve: answering() });
    expect(refused).toMatchObject({ statusCode: null, error: 'ECONNREFUSED' });

    const failing: Resolve = () =>
      Promise.reject(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' }));
    const unknown = await safePost('https://nowhere.example.test/', message, { ...open, resolve: failing });
    expect(unknown).toMatchObject({ statusCode: null, error: 'ENOTFOUND' });

    const binary = await listen(http.createServer((_req, res) => res.writeHead(500).end('a\u0000b')));
    const answer = await safePost(`http://127.0.0.1:${binary.port}/`, message, {
      ...open,
      resolve: answering(),
    });
    expect(answer).toMatchObject({ statusCode: 500, error: 'HTTP 500', response: 'ab' });
  });
});
