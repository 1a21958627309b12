import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ErrorBody } from '../errors/replies.js';
import { API_PAGE_THEME, API_TITLE } from './api-page.js';
import { ERROR_EXAMPLES } from './error-examples.js';
import { STANDARD_ERRORS, TAGS, forClients, openApiPath, type OpenApiDocument } from './openapi-document.js';
import type { DocumentedAnswer } from '../schemas/schemas.js';

declare module 'fastify' {
  interface FastifySchema {
    /** Document only: the body's other media types (multipart/form-data), which the route reads itself. */
    bodyMedia?: Readonly<Record<string, TSchema>>;
    /** Document only: answers no serializer reads (a file, a CSV export, a redirect), by status. */
    answers?: Readonly<Record<number, DocumentedAnswer>>;
    /** Document only: the success answer sets or clears a cookie (`Set-Cookie`). */
    setsCookie?: boolean;
  }
}

const ERROR_REF = { $ref: 'Error#' };

const INTRODUCTION =
  'Monitoring, evaluation and learning backend: organizations, programs, projects, indicators and ' +
  'donor reports.\n\n' +
  'Errors share one body, `Error`: `statusCode`, `message`, `error` and a stable `code`. Every answer ' +
  'carries `X-Request-Id`; the answers of rate-limited routes carry `X-RateLimit-Limit`, ' +
  '`-Remaining` and `-Reset`. A known path asked with a method it does not serve answers 405 with ' +
  '`Allow` listing the methods it has (not repeated under every operation: no operation can have it). ' +
  'POSTs that create or act take an `Idempotency-Key`. JSON answers to GETs carry an `ETag` for ' +
  '`If-None-Match` (304); writes to a resource take `If-Match` (412).';

/**
 * The route's schema as the document shows it: the media types only the document knows (multipart
 * bodies, files, CSV, redirects) put where @fastify/swagger reads them. `produces` and `consumes` go:
 * @fastify/swagger would give their types to the error answers too, which are JSON. The route's own
 * schema, which validation and serialization use, is left as it is.
 */
function documented(schema: FastifySchema): FastifySchema {
  const {
    bodyMedia,
    answers,
    setsCookie: _cookie,
    produces: _produces,
    consumes: _consumes,
    ...rest
  } = schema;
  const copy: FastifySchema = { ...rest };
  if (bodyMedia) {
    const media = schema.body ? { 'application/json': schema.body as TSchema, ...bodyMedia } : bodyMedia;
    copy.body = { content: mapValues(media, (body) => ({ schema: body })) };
  }
  if (answers) {
    copy.response = {
      ...(schema.response as object),
      ...mapValues(answers, ({ description, content }) =>
        content
          ? { description, content: mapValues(content, (body) => ({ schema: body })) }
          : { description, type: 'null' },
      ),
    };
  }
  return copy;
}

const mapValues = <T, U>(record: Readonly<Record<string, T>>, map: (value: T) => U): Record<string, U> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));

/**
 * The document is generated from the route schemas. Each route's security and error responses follow
 * from its declared access, so they are never written by hand; what a client needs beyond them (names,
 * headers, retries, conditional requests) is added by one pass over the finished document.
 */
export async function registerOpenApi(app: FastifyInstance, version: string, baseUrl: string): Promise<void> {
  // With one example of every error code: the catalogue, in the document (error-examples.ts).
  app.addSchema({ ...ErrorBody, examples: Object.values(ERROR_EXAMPLES) });
  // Routes by `METHOD /openapi/{path}`, read when the document is built: by then every route is known,
  // and a plugin's own hook (the documentation's) has declared its access.
  const routes = new Map<string, RouteOptions>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    for (const method of methods) {
      if (method !== 'HEAD' && !route.schema?.hide) routes.set(`${method} ${openApiPath(route.url)}`, route);
    }
    const access = route.config?.access;
    if (!route.schema || access === undefined) return;
    const statuses = [400, 404, 500];
    if (route.config?.rateLimitBucket !== 'none') statuses.push(429);
    if (route.schema.body || route.schema.bodyMedia) statuses.push(413, 415);
    // A page answers a signed-out visitor with a redirect to its sign-in page, never a JSON 401.
    const page = ((route.schema.produces ?? []) as string[]).includes('text/html');
    if (access !== 'public' && !page) statuses.push(401);
    if (typeof access === 'object') statuses.push(403);
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    for (const status of statuses) {
      response[status] ??= { ...ERROR_REF, description: STANDARD_ERRORS[status]!.description };
    }
    route.schema.response = response;
    route.schema.security = access === 'public' ? [] : [{ cookieAuth: [] }, { bearerAuth: [] }];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: API_TITLE,
        version,
        description: INTRODUCTION,
        license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: baseUrl, description: 'This service (BASE_URL)' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'jwt' },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    // Routes are registered without the path a proxy strips, so no route path starts with BASE_URL's.
    stripBasePath: false,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => ({ schema: schema && documented(schema), url }),
    transformObject: (documentObject) =>
      forClients((documentObject as { openapiObject: OpenApiDocument }).openapiObject, { routes }),
  });
  // The documentation pages are public; the rule is declared here, on the plugin that adds them.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: 'public' };
    });
    await docs.register(swaggerUi, {
      routePrefix: '/api',
      // Swagger UI's own CSP (`style-src 'self'`, no inline style): its stock logo is replaced rather
      // than the CSP opened (api-page.ts).
      staticCSP: true,
      theme: API_PAGE_THEME,
      // Not the plugin's own logo either (an image swapped in after the top bar is drawn): the name alone.
      // The plugin reads null as "no logo" (undefined gets its default); its types do not say so.
      logo: null as unknown as undefined,
      uiConfig: { withCredentials: true },
    });
  });

  app.get('/api/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, () => app.swagger());
}
