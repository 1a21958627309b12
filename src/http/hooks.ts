import type { preValidationAsyncHookHandler } from 'fastify';
import { normalizeEmail } from '../lib/email.js';

/** Emails are trimmed and lower-cased before they are validated (DECISIONS.md section 3). */
export const normalizeEmailField: preValidationAsyncHookHandler = async (request) => {
  const body = request.body as { email?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.email === 'string') {
    body.email = normalizeEmail(body.email);
  }
};
