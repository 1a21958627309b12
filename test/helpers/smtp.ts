import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedEmail {
  to: string[];
  raw: string;
  /** The decoded text of the message (quoted-printable soft breaks undone). */
  text: string;
}

/**
 * A real SMTP peer for email flows. `stop()` then `start()` simulates an outage on the same port.
 */
export class TestSmtpServer {
  readonly received: ReceivedEmail[] = [];
  private server: SMTPServer | null = null;
  private port = 0;
  private waiters: (() => void)[] = [];

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, text: decode(raw) });
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Waits until a message to `address` has arrived (or `timeoutMs` passes) and returns it. */
  async waitFor(address: string, timeoutMs = 10_000): Promise<ReceivedEmail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((m) => m.to.includes(address));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no email to ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

function decode(raw: string): string {
  const body = raw
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join('\n\n');
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(raw)) return body;
  return body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The first link in a message that starts with `prefix`. */
export function linkIn(email: ReceivedEmail, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped}[^\\s]+`).exec(email.text);
  if (!match) throw new Error(`no link starting with ${prefix} in:\n${email.text}`);
  return match[0];
}
