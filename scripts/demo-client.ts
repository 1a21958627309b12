/**
 * How `npm run demo` talks to the running service: its public HTTP API (never its database files, which
 * the service holds), and the emails the service writes under DATA_DIR/mail when SMTP_URL is unset.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A refusal or a problem the person running the demo can act on: printed alone, without a stack. */
export class DemoError extends Error {}

export interface Answer {
  status: number;
  body: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The slowest answer waited for: assembling a report on a busy laptop takes seconds, not minutes. */
const ANSWER_WITHIN_MS = 60_000;

/** The running service at `url`; counts the requests it is sent (its general rate limit counts them too). */
export class Service {
  sent = 0;

  /** `url` without a trailing slash: routes are appended to it (the service may live under a path). */
  constructor(
    readonly url: string,
    private readonly say: (line: string) => void,
  ) {}

  async send(method: string, route: string, body?: unknown, token?: string): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(`${this.url}${route}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
        });
      } catch (err) {
        if ((err as Error).name === 'TimeoutError') {
          throw new DemoError(
            `${method} ${route}: no answer from ${this.url} within ${ANSWER_WITHIN_MS / 1000} s.`,
          );
        }
        const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
        throw new DemoError(
          `No answer from ${this.url} (${cause}). Start the service first (npm start), or pass its address with --url.`,
        );
      }
      this.sent += 1;
      const text = await response.text();
      // A limit of the service, not a failure: wait as long as it says, a few times over.
      if (response.status === 429 && attempt <= 3) {
        const retryAfter = response.headers.get('retry-after') ?? '';
        const seconds = /^\d+$/.test(retryAfter) ? Math.max(1, Number(retryAfter)) : 60;
        this.say(`  (the service's rate limit is reached: waiting ${seconds} s, as it asks)`);
        await sleep(seconds * 1000);
        continue;
      }
      return { status: response.status, body: parseJson(text) };
    }
  }

  /** A session signed in with this bearer token. */
  as(token: string): Session {
    return new Session(this, token);
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The error body's message, however the service shaped it (a string, or a list for validation). */
export function messageOf(body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return typeof body === 'string' ? body.slice(0, 200) : JSON.stringify(body);
}

/** One signed-in account; every call must succeed, or the demo stops and says which call failed. */
export class Session {
  constructor(
    readonly service: Service,
    readonly token: string,
  ) {}

  get<T>(route: string): Promise<T> {
    return this.call<T>('GET', route);
  }

  post<T>(route: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', route, body);
  }

  patch<T>(route: string, body?: unknown): Promise<T> {
    return this.call<T>('PATCH', route, body);
  }

  private async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const answer = await this.service.send(method, route, body, this.token);
    if (answer.status >= 200 && answer.status < 300) return answer.body as T;
    throw new DemoError(`${method} ${route} answered ${answer.status}: ${messageOf(answer.body)}`);
  }
}

/**
 * The .eml files the service writes under DATA_DIR/mail when it has no SMTP server (one per message,
 * written by its outbox worker shortly after the change that queued it).
 */
export class Mailbox {
  readonly folder: string;

  constructor(dataDir: string) {
    this.folder = path.join(path.resolve(dataDir), 'mail');
  }

  /** The messages there now, to tell the new ones from those of earlier runs. */
  names(): Set<string> {
    try {
      return new Set(readdirSync(this.folder).filter((name) => name.endsWith('.eml')));
    } catch {
      return new Set();
    }
  }

  /**
   * The text of the first message written since `before` to `address` that matches `pattern`, waiting
   * up to `waitMs`; null when none came (the service sends by SMTP, or keeps its DATA_DIR elsewhere).
   */
  async waitFor(
    address: string,
    before: Set<string>,
    pattern: RegExp,
    waitMs: number,
  ): Promise<string | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      for (const name of this.names()) {
        if (before.has(name)) continue;
        const text = readMessage(path.join(this.folder, name));
        if (text && recipientOf(text) === address && pattern.test(text)) return text;
      }
      if (Date.now() > deadline) return null;
      await sleep(100);
    }
  }
}

/** A message's headers and decoded text; null when it cannot be read (still being written). */
function readMessage(file: string): string | null {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  if (!/^Content-Transfer-Encoding: quoted-printable$/im.test(raw)) return raw;
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const recipientOf = (text: string) => /^To: (.+)$/m.exec(text)?.[1]?.trim().toLowerCase();
