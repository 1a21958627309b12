import { sql } from 'drizzle-orm';
import { index, integer, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, timestamptz } from '../../db/columns.js';

export const outboxStatus = pgEnum('outbox_status', ['pending', 'sent', 'failed']);

/** Emails are written here in the transaction of the change that causes them; the worker delivers them. */
export const outboxEmails = pgTable(
  'outbox_emails',
  {
    id: id(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    status: outboxStatus('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    /** A worker that claimed the message owns it until then; after a crash another worker takes it over. */
    claimedUntil: timestamptz('claimed_until'),
    lastError: text('last_error'),
    sentAt: timestamptz('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('outbox_emails_pending_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
  ],
);
