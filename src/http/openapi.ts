import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from './errors.js';

const ERROR_REF = { $ref: 'Error#' };
const ERRORS: Record<number, string> = {
  400: 'Invalid input: one message per violation',
  401: 'No valid session',
  403: 'Not a member of the organization, or the role is not allowed',
  404: 'Not found in this organization',
  413: 'Body larger than 1 MiB',
  415: 'Unsupported content type',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal server error',
};

/**
 * The document is generated from the route schemas. Each route's security and error responses follow
 * from its declared access, so they are never written by hand.
 */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  app.addSchema(ErrorBody);
  app.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    if (!route.schema || access === undefined) return;
    const statuses = [400, 404, 429, 500];
    if (route.schema.body) statuses.push(413, 415);
    if (access !== 'public') statuses.push(401);
    if (typeof access === 'object') statuses.push(403);
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    for (const status of statuses) response[status] ??= { ...ERROR_REF, description: ERRORS[status] };
    route.schema.response = response;
    route.schema.security = access === 'public' ? [] : [{ cookieAuth: [] }, { bearerAuth: [] }];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'MEL service API',
        version,
        description:
          'Monitoring, evaluation and learning backend: organizations, programs, projects, indicators and ' +
          'donor reports. Errors share one body: `{ statusCode, message, error }`.',
      },
      components: {
        securitySchemes: {
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'jwt' },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
  // The documentation pages are public; the rule is declared here, on the plugin that adds them.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'public' };
    });
    await docs.register(swaggerUi, {
      routePrefix: '/api',
      staticCSP: true,
      uiConfig: { withCredentials: true },
    });
  });

  app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, () => app.swagger());
}
