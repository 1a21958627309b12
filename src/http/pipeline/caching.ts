import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { COOKIE_NAME } from './session.js';

/** Whether the request came with a session, or tried to (a refused token's 401 is personal too). */
const authenticated = (request: FastifyRequest) =>
  request.session !== null ||
  request.headers.authorization !== undefined ||
  Boolean((request.cookies as Record<string, string | undefined> | undefined)?.[COOKIE_NAME]);

/**
 * `Cache-Control: no-store` on every answer to an authenticated request, unless its route chose its own
 * (the shared report, the pages, their assets): what one member reads must not be kept by a browser
 * or a proxy for the next user of the machine. Revalidation still works: clients keep the ETag.
 */
export function registerCacheControl(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!reply.hasHeader('cache-control') && authenticated(request))
      void reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** A shared report: any cache may keep it for its reader, and must ask again (ETag) before each use. */
export const REVALIDATE_EACH_TIME = 'private, max-age=0, must-revalidate';

/** The Vary header of an answer that depends on Accept (page or JSON), keeping what CORS put there. */
export function varyOnAccept(reply: FastifyReply): string {
  const vary = reply.getHeader('vary');
  const present = (Array.isArray(vary) ? vary.join(', ') : String(vary ?? '')).trim();
  if (/(^|,)\s*accept\s*(,|$)/i.test(present)) return present;
  return present ? `${present}, Accept` : 'Accept';
}
