import type { Db } from '../../db/client.js';
import { insertEmail, type OutgoingEmail } from './mail.repo.js';

/** Queues an email inside the caller's transaction: it is sent only if the change commits. */
export function queueEmail(tx: Db, email: OutgoingEmail): Promise<void> {
  return insertEmail(tx, email);
}
