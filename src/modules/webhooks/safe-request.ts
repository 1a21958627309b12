import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A host name's addresses; tests hand their own to play a DNS answer. Aborted at the attempt's deadline. */
export type Resolve = (
  hostname: string,
  signal?: AbortSignal,
) => Promise<{ address: string; family: 4 | 6 }[]>;

const isLocalhost = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

/**
 * DNS through c-ares (`dns.Resolver`), A and AAAA records: not `dns.lookup`, whose getaddrinfo calls hold
 * one of libuv's four threads (which bcrypt and file reads share) for as long as a slow name server makes
 * them, and cannot be cancelled; these are cancelled at the attempt's deadline. `localhost` and its
 * subdomains are loopback (RFC 6761) without asking.
 */
export const systemResolve: Resolve = async (hostname, signal) => {
  if (isLocalhost(hostname)) {
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  }
  const resolver = new dns.Resolver({ timeout: 3000, tries: 2 });
  const cancel = () => resolver.cancel();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
    return addresses;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
};

/** How much of an answer is kept for the delivery record; the rest is never read. */
export const RESPONSE_LIMIT = 1024;

export interface SafePostOptions {
  /** WEBHOOK_ALLOW_PRIVATE: private and special addresses allowed, and http: to loopback. */
  allowPrivate: boolean;
  resolve: Resolve;
  /** From the start of the lookup to the last byte of the answer. */
  timeoutMs: number;
  /** Certificates trusted besides the system's (tests, with a receiver of their own). */
  ca?: string;
  /** Gives the attempt up (error `ABANDONED`), as its deadline does: the worker lost its claim. */
  signal?: AbortSignal;
}

/** The error of an attempt given up through its signal before an answer came. */
export const ABANDONED = 'abandoned';

export interface PostOutcome {
  /** Null when no answer came (refused, connection error, timeout before the status line). */
  statusCode: number | null;
  /** The answer's first RESPONSE_LIMIT bytes as text; null when there was no answer. */
  response: string | null;
  /** Null on success (a 2xx, read in time); otherwise a short reason: `timeout`, `HTTP 500`, `ECONNREFUSED`… */
  error: string | null;
  durationMs: number;
}

/** An address checked for calling: canonical (IPv4-mapped IPv6 written as IPv4), with its range. */
interface CheckedAddress {
  address: string;
  family: 4 | 6;
  range: string;
}

/** The address as connected to, and its ipaddr.js range (`unicast` for public addresses); null when not an IP. */
export function checkAddress(address: string): CheckedAddress | null {
  if (!ipaddr.isValid(address)) return null;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return { address: parsed.toString(), family: 4, range: parsed.range() };
  // ::/16 beyond what process() turned into IPv4 (IPv4-compatible ::a.b.c.d among them) is reserved, though
  // ipaddr.js calls it unicast: an IPv6-in-IPv4 tunnel would carry it to the embedded IPv4 address.
  const range = parsed.range();
  const reserved = range === 'unicast' && (parsed as ipaddr.IPv6).parts[0] === 0;
  return { address: parsed.toString(), family: 6, range: reserved ? 'reserved' : range };
}

/**
 * The range of a URL's host when it is an IP literal or localhost (as `checkAddress` gives it; `loopback`
 * for localhost and its subdomains), null for any other name: for refusing a URL before any lookup.
 */
export function literalHostRange(hostname: string): string | null {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isLocalhost(host)) return 'loopback';
  return isIP(host) ? (checkAddress(host)?.range ?? null) : null;
}

/** Why a webhook may not go to these addresses, or null when it may. */
export function refusalOf(
  addresses: readonly { address: string }[],
  options: { allowPrivate: boolean; loopbackOnly?: boolean },
): string | null {
  if (addresses.length === 0) return 'refused: no address';
  for (const { address } of addresses) {
    const checked = checkAddress(address);
    if (!checked) return `refused: not an address ${address}`;
    if (options.loopbackOnly && checked.range !== 'loopback')
      return `refused: http to non-loopback ${address}`;
    if (checked.range !== 'unicast' && !options.allowPrivate)
      return `refused: ${words(checked.range)} address ${address}`;
  }
  return null;
}

const words = (range: string) => range.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

class Refused extends Error {}
class TimedOut extends Error {}
class Abandoned extends Error {}

/**
 * POSTs to a URL chosen by a tenant without letting it reach the service's own network: the host is
 * resolved once, every address must be public unicast (unless allowPrivate), and the connection goes to the
 * address that was checked — the `lookup` handed to Node answers with it, so no second DNS answer can
 * swap in another one, while the host name still drives TLS SNI, the certificate check and the Host header.
 * Redirects are not followed (Node's client never does), proxies from the environment are not used.
 */
export async function safePost(
  target: string,
  message: { headers: Record<string, string>; body: string },
  options: SafePostOptions,
): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  let abandon: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), options.timeoutMs);
    abandon = () => reject(new Abandoned());
    if (options.signal?.aborted) abandon();
    else options.signal?.addEventListener('abort', abandon, { once: true });
  });
  const lookups = new AbortController();
  void deadline.catch(() => lookups.abort());
  const answered: Answered = { statusCode: null, chunks: [] };
  const ok = (code: number | null) => code !== null && code >= 200 && code < 300;
  try {
    const address = await Promise.race([checkedTarget(target, options, lookups.signal), deadline]);
    const answer = send(address, message, options.ca, answered);
    const result = await Promise.race([answer.done, deadline]).finally(answer.abort);
    return {
      ...result,
      error: ok(result.statusCode) ? null : `HTTP ${result.statusCode}`,
      durationMs: elapsed(),
    };
  } catch (err) {
    // A 2xx whose body was still coming at the deadline was received: it must not be sent again.
    if ((err instanceof TimedOut || err instanceof Abandoned) && ok(answered.statusCode)) {
      return {
        statusCode: answered.statusCode,
        response: textOf(answered.chunks),
        error: null,
        durationMs: elapsed(),
      };
    }
    return { statusCode: answered.statusCode, response: null, error: reasonOf(err), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    if (abandon) options.signal?.removeEventListener('abort', abandon);
  }
}

/** What came back so far: the status line and the first bytes of the body. */
interface Answered {
  statusCode: number | null;
  chunks: Buffer[];
}

/** The answer's first RESPONSE_LIMIT bytes as text; PostgreSQL text holds no NUL, so those are dropped. */
function textOf(chunks: Buffer[]): string {
  return Buffer.concat(chunks).subarray(0, RESPONSE_LIMIT).toString('utf8').replaceAll('\u0000', '');
}

function reasonOf(err: unknown): string {
  if (err instanceof TimedOut) return 'timeout';
  if (err instanceof Abandoned) return ABANDONED;
  if (err instanceof Refused) return err.message;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code) return code;
  return err instanceof Error ? err.message.slice(0, 200) : 'request failed';
}

interface Target {
  url: URL;
  hostname: string;
  address: CheckedAddress;
}

async function checkedTarget(target: string, options: SafePostOptions, signal: AbortSignal): Promise<Target> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new Refused('refused: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Refused(`refused: scheme ${url.protocol}`);
  if (url.protocol === 'http:' && !options.allowPrivate) throw new Refused('refused: http is not https');
  // new URL() writes IPv6 hosts in brackets and every IPv4 spelling (hex, octal, one number) as a.b.c.d.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(hostname);
  const addresses = family ? [{ address: hostname, family }] : await options.resolve(hostname, signal);
  const refusal = refusalOf(addresses, {
    allowPrivate: options.allowPrivate,
    loopbackOnly: url.protocol === 'http:',
  });
  if (refusal) throw new Refused(refusal);
  return { url, hostname, address: checkAddress(addresses[0]!.address)! };
}

function send(
  { url, hostname, address }: Target,
  message: { headers: Record<string, string>; body: string },
  ca: string | undefined,
  answered: Answered,
): { done: Promise<{ statusCode: number; response: string }>; abort: () => void } {
  // Node 20 asks with `all: true` when it may try several addresses (autoSelectFamily): one is offered.
  const lookup = (
    _hostname: string,
    lookupOptions: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (lookupOptions.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const request = (url.protocol === 'https:' ? https : http).request({
    method: 'POST',
    host: hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    headers: { ...message.headers, 'content-length': String(Buffer.byteLength(message.body)) },
    // A fresh socket each time: a pooled one could have been opened to another address.
    agent: false,
    lookup,
    ...(ca ? { ca } : {}),
  });
  const done = new Promise<{ statusCode: number; response: string }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (response: IncomingMessage) => {
      const statusCode = response.statusCode ?? 0;
      answered.statusCode = statusCode;
      const { chunks } = answered;
      let size = 0;
      const finish = () => resolve({ statusCode, response: textOf(chunks) });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size < RESPONSE_LIMIT) return;
        finish();
        request.destroy();
      });
      response.on('end', finish);
      response.on('error', reject);
    });
    request.end(message.body);
  });
  // After a timeout nobody waits for this any more; its late error (the socket torn down) is expected.
  done.catch(() => undefined);
  return { done, abort: () => request.destroy() };
}
