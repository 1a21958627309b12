import type { FastifyReply, preValidationAsyncHookHandler } from 'fastify';
import { normalizeEmail } from '../lib/email.js';

/** Emails are trimmed and lower-cased before they are validated (DECISIONS.md section 3). */
export const normalizeEmailField: preValidationAsyncHookHandler = async (request) => {
  const body = request.body as { email?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.email === 'string') {
    body.email = normalizeEmail(body.email);
  }
};

/** The Vary header of an answer that depends on Accept (page or JSON), keeping what CORS put there. */
export function varyOnAccept(reply: FastifyReply): string {
  const vary = reply.getHeader('vary');
  const present = (Array.isArray(vary) ? vary.join(', ') : String(vary ?? '')).trim();
  if (/(^|,)\s*accept\s*(,|$)/i.test(present)) return present;
  return present ? `${present}, Accept` : 'Accept';
}
