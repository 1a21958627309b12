import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { OutgoingEmail } from './mail.repo.js';

type Mailer = (typeof import('nodemailer'))['default'];

export type SendEmail = (email: OutgoingEmail & { id: string }) => Promise<void>;

/**
 * A transport made at the first message: nodemailer is loaded then, not at start-up (its modules are
 * about 2 MB of an idle service's heap, measured, and many processes never send an email).
 */
function onFirstSend<T>(make: (mailer: Mailer) => Transporter<T>) {
  let transport: Promise<Transporter<T>> | undefined;
  return {
    get: () => (transport ??= import('nodemailer').then((mailer) => make(mailer.default))),
    close: () =>
      void transport?.then(
        (made) => made.close(),
        () => undefined,
      ),
  };
}

/** SMTP when `SMTP_URL` is set; otherwise each message becomes an .eml file under DATA_DIR/mail. */
export function createMailTransport(
  config: Config,
  log: FastifyBaseLogger,
): { send: SendEmail; close(): void } {
  const message = (email: OutgoingEmail & { id: string }) => ({
    from: config.mailFrom,
    to: email.recipient,
    subject: email.subject,
    text: email.body,
    messageId: `<${email.id}@mel.local>`,
  });

  if (config.smtpUrl) {
    // A hung server holds a message at most this long (its claim is renewed meanwhile), then it is retried.
    const url = config.smtpUrl;
    const smtp = onFirstSend((mailer) =>
      mailer.createTransport({
        url,
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
      }),
    );
    return {
      send: async (email) => {
        await (await smtp.get()).sendMail(message(email));
      },
      close: smtp.close,
    };
  }

  const folder = path.join(config.dataDir, 'mail');
  const files = onFirstSend((mailer) =>
    mailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    send: async (email) => {
      const info = await (await files.get()).sendMail(message(email));
      await mkdir(folder, { recursive: true });
      const file = path.join(folder, `${email.id}.eml`);
      await writeFile(file, info.message as Buffer);
      log.info({ to: email.recipient, subject: email.subject, file }, 'email written (SMTP_URL is not set)');
    },
    close: files.close,
  };
}
