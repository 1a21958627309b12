import type { FastifyRequest } from 'fastify';

/** OPTIONS is left out: the CORS plugin answers it on every path, known or not. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * For a request no route took: when its path is served with other methods, what a 405 says and its
 * `Allow` (RFC 9110 section 15.5.6; HEAD wherever GET is). Null when the path is unknown: a 404.
 */
export function refusedMethod(request: FastifyRequest): { message: string; allow: string[] } | null {
  const url = request.url.split('?')[0] ?? '';
  const allow = METHODS.filter((method) => request.server.findRoute({ method, url }) !== null);
  if (allow.length === 0) return null;
  return { message: `Method ${request.method} is not allowed on ${url}`, allow };
}
