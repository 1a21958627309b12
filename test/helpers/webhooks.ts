import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request as the receiver got it: the body exactly as sent, since that is what was signed. */
export interface ReceivedWebhook {
  method: string;
  /** The path the request went to: each endpoint of a test has a path of its own. */
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAt: Date;
}

/** How the receiver answers a request: a status code, after a delay when a test plays a slow peer. */
export interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
}

/**
 * A real HTTP peer on 127.0.0.1 for webhook deliveries (reach it with WEBHOOK_ALLOW_PRIVATE=true). It
 * records every request whole before it answers, so a delivery awaited by the test has been recorded.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The answer to the next requests; change it to play a failing or slow receiver. */
  answer: Answer = { status: 204 };
  private server: Server | null = null;
  private port = 0;

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
          receivedAt: new Date(),
        });
        const { status, body = '', delayMs = 0 } = this.answer;
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'text/plain' });
          res.end(body);
        }, delayMs);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A URL of its own for one endpoint: what reaches it is `at(url)`. */
  newUrl(): string {
    return `http://127.0.0.1:${this.port}/hooks/${randomUUID()}`;
  }

  /** The requests sent to `url`, in arrival order. */
  at(url: string): ReceivedWebhook[] {
    const path = new URL(url).pathname;
    return this.received.filter((request) => request.path === path);
  }
}

/** The header value as one string (a repeated header would be an array, which no receiver expects). */
export function header(request: ReceivedWebhook, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Verifies the request as a receiver would, with the Standard Webhooks reference library; it throws
 * when the signature does not match, and returns the parsed body.
 */
export function verify(secret: string, request: ReceivedWebhook): unknown {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    headers[name] = header(request, name) ?? '';
  }
  return new Webhook(secret).verify(request.rawBody, headers);
}
