import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

/**
 * pino options: link tokens (invitation, reset, form, share) and the identity provider's authorization
 * code never reach the logs, and neither do the parameters of a failed query, which may hold emails and
 * hashes.
 */
export function loggerOptions(config: Config): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: { paths: ['err.params', 'err.cause.parameters'], censor: '[redacted]' },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactedUrl(request),
        remoteAddress: request.ip,
      }),
    },
  };
}

export function redactedUrl(request: Pick<FastifyRequest, 'url' | 'params'>): string {
  let url = request.url;
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (/token/i.test(name) && typeof value === 'string' && value.length > 0) {
      url = url.replace(encodeURIComponent(value), '[redacted]').replace(value, '[redacted]');
    }
  }
  // Also the identity provider's one-time authorization `code` on the sign-in callback.
  return url.replace(/([?&](?:[^=&]*token[^=&]*|code)=)[^&]*/gi, '$1[redacted]');
}
