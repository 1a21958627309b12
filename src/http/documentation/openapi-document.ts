import { STATUS_CODES } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import type { RouteOptions } from 'fastify';
import { IDEMPOTENCY_KEY } from '../../lib/patterns.js';
import { EXAMPLE_OBJECTS, EXAMPLES_OF_RESPONSE, examplesOfStatus } from './error-examples.js';
import { TEXT_PATTERNS } from '../../lib/text.js';
import { conditionalTargetOf } from '../pipeline/conditional.js';
import { takesIdempotencyKey } from '../pipeline/idempotency.js';
import { optionalBody } from '../schemas/validation.js';

/**
 * The pass over the finished OpenAPI document that makes it what client generators need: named
 * schemas, response headers and the request headers of retries and conditional requests, each
 * described once under `components` and referenced. The route schemas stay as validation reads them.
 */

type Json = Record<string, unknown>;
interface Response extends Json {
  description?: string;
  headers?: Record<string, Json>;
  content?: Record<string, { schema?: Json; examples?: Json }>;
}
interface Operation extends Json {
  operationId?: string;
  parameters?: Json[];
  requestBody?: Json & { required?: boolean };
  responses: Record<string, Response>;
}
export interface OpenApiDocument extends Json {
  paths: Record<string, Record<string, Operation>>;
  components: Json & { schemas?: Record<string, Json> };
}

/** Fastify's `/things/:thingId` as the document writes it, `/things/{thingId}`. */
export const openApiPath = (url: string): string => url.replace(/:(\w+)/g, '{$1}');

/** The error answers every route may give, added from its access (openapi.ts), each described once. */
export const STANDARD_ERRORS: Readonly<Record<number, { name: string; description: string }>> = {
  400: { name: 'BadRequest', description: 'Invalid input: one message per violation' },
  401: { name: 'Unauthorized', description: 'No valid session' },
  403: {
    name: 'Forbidden',
    description:
      'Not a member of the organization, or the role is not allowed: `allowedRoles` names the roles that ' +
      'may, `reason` why else (not a member, a project not assigned to a reporter)',
  },
  404: { name: 'NotFound', description: 'Not found in this organization' },
  413: { name: 'PayloadTooLarge', description: 'Body larger than 1 MiB' },
  415: { name: 'UnsupportedMediaType', description: 'Unsupported content type' },
  429: { name: 'TooManyRequests', description: 'Rate limit exceeded; see Retry-After' },
  500: { name: 'InternalServerError', description: 'Internal server error' },
};

export const TAGS = [
  ['Health', 'Liveness and readiness, for load balancers and orchestrators; not rate limited'],
  ['Authentication', 'Accounts, sessions (the `jwt` cookie or a bearer token), password resets, email proof'],
  ['Organizations', 'The tenants: every other resource belongs to one organization'],
  [
    'Access tokens',
    'Personal access tokens: a user’s long-lived credential in one organization, for Power BI, Excel and scripts',
  ],
  ['Members and invitations', "An organization's members, their roles, and invitations by email"],
  ['Donors', "The organization's registry of funders"],
  ['Programs', 'Programs group projects and their donors'],
  ['Projects', 'Projects of a program: budget, dates, status'],
  ['Project assignments', 'Which members (reporters) may work on which projects'],
  ['Results framework', "A program's impacts, outcomes and outputs, as a tree"],
  ['Reporting periods', "A project's reporting periods, which can be locked"],
  ['Indicators', 'Indicator definitions, their disaggregations, and the projects that track them'],
  ['Indicator reports', 'The value of an indicator for a project and period, and its review'],
  ['Data quality', 'Validation rules over indicators, checked as values are written'],
  ['Activities', "A project's activities and the participants registered in them"],
  ['Participants', 'The people an organization works with; personal data, its export and erasure'],
  ['Budget lines', "A project's planned and actual amounts"],
  ['Attachments', 'Documents attached to a project'],
  ['Forms', 'Data-collection forms and their submissions'],
  ['Imports', "A project's set-up from one workbook, and its template"],
  ['Public forms', 'The respondents’ side of a published form: no session, the public rate limit'],
  ['Reports', 'Donor reports assembled from indicators, activities and budget, and their share links'],
  ['Shared reports', 'The donors’ side of a share link: no session, the public rate limit'],
  ['Dashboard', 'The organization at a glance'],
  ['Activity feed', 'Recent events across the organization'],
  ['Personal data', 'The audit log of who read or changed personal data'],
  [
    'Webhooks',
    "Signed event notifications to the organization's systems (Standard Webhooks), and their deliveries",
  ],
  ['Public pages', 'The HTML pages behind the links the service hands out (forms, shared reports, accounts)'],
  [
    'Member pages',
    'The HTML pages behind the links in emails to members (indicator reports, reporting periods, settings, ' +
      'webhooks) and the sign-in page they go through',
  ],
].map(([name, description]) => ({ name: name!, description: description! }));

const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });
const INTEGER = { type: 'integer', minimum: 0 };

const HEADERS: Record<string, Json> = {
  'X-Request-Id': header(
    'The id of this request in the logs: the one sent in `X-Request-Id` when it is 1 to 128 letters, ' +
      'digits, `_`, `.`, `:` or `-`, else a new UUID',
  ),
  'X-RateLimit-Limit': header('Requests allowed in the window', INTEGER),
  'X-RateLimit-Remaining': header('Requests left in the window', INTEGER),
  'X-RateLimit-Reset': header('Seconds until the window starts again', INTEGER),
  'Retry-After': header('Seconds to wait before retrying', INTEGER),
  Link: header('Only on an unpaged array cut short: `<next page URL>; rel="next"` (RFC 8288)'),
  Location: header('The URL of the created resource, or where a redirect leads', {
    type: 'string',
    format: 'uri-reference',
  }),
  ETag: header('A strong validator of this representation: send it back in `If-None-Match` or `If-Match`'),
  'Set-Cookie': header(
    'The session cookie `jwt` set or cleared (HttpOnly, SameSite=Lax, Path=/, Secure when BASE_URL is ' +
      'https); the external sign-in also sets and clears its short-lived `idp_flow`',
  ),
  'WWW-Authenticate': header('`Bearer`, with `error="invalid_token"` when a token was presented and refused'),
  'Idempotent-Replayed': header(
    '`true` on the kept answer of an earlier request with the same `Idempotency-Key`; nothing was done again',
    { type: 'string', enum: ['true'] },
  ),
  'Content-Disposition': header(
    '`attachment; filename="…"`, with an RFC 5987 `filename*` when the name is not ASCII',
  ),
  'Import-Applied': header(
    'On an import answered as a checked workbook (`format=xlsx`): `true` when its rows were applied, ' +
      '`false` when nothing was changed (a dry run, or a refused row of an all-or-nothing import)',
    { type: 'string', enum: ['true', 'false'] },
  ),
};

const headerParameter = (name: string, description: string, schema: Json = { type: 'string' }) => ({
  name,
  in: 'header',
  required: false,
  description,
  schema,
});

const PARAMETERS: Record<string, Json> = {
  IdempotencyKey: headerParameter(
    'Idempotency-Key',
    'Makes a retry safe: the first completed answer is kept 24 hours for this key and caller (user, or ' +
      'form token) and a retry with the same body gets it again with `Idempotent-Replayed: true`. A new ' +
      'key per operation, e.g. a UUID. 1 to 255 visible ASCII characters; other values: 400. An answer ' +
      'that carried personal data (participant registrations, household members) is replayed as a viewer ' +
      'reads it, its personal fields null: read the resource again for them. A multipart body is not ' +
      'compared. A request still running after its process died holds its key 5 minutes (409).',
    { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.pattern },
  ),
  IfNoneMatch: headerParameter(
    'If-None-Match',
    'ETags the client holds (a list, or `*`): when one matches the current representation, 304 without a body',
  ),
  IfMatch: headerParameter(
    'If-Match',
    'The ETag the change is based on (a list, or `*`): when the resource changed since, 412 and nothing ' +
      'is changed. Without it the change is made whatever the current version.',
  ),
};

const ERROR_SCHEMA = { $ref: '#/components/schemas/Error' };
const refs = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const RATE_LIMIT = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const HEADERS_OF_STATUS: Readonly<Record<number, readonly string[]>> = {
  401: ['WWW-Authenticate'],
  429: ['Retry-After', ...RATE_LIMIT],
};

/** An error answer, showing the examples of `components.examples` it names. */
const errorAnswer = (description: string, examples: readonly string[], headers: readonly string[] = []) => ({
  description,
  headers: refs([...headers, 'X-Request-Id']),
  content: { 'application/json': { schema: ERROR_SCHEMA, examples: exampleRefs(examples) } },
});

const exampleRefs = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/examples/${name}` }]));

const IDEMPOTENCY_RUNNING = 'A request with the same Idempotency-Key is still running';
const RESPONSES: Record<string, Json> = {
  ...Object.fromEntries(
    Object.entries(STANDARD_ERRORS).map(([status, { name, description }]) => [
      name,
      errorAnswer(description, EXAMPLES_OF_RESPONSE[name] ?? [], HEADERS_OF_STATUS[Number(status)]),
    ]),
  ),
  NotModified: {
    description: 'If-None-Match matched: the representation the client holds is current',
    headers: refs(['ETag', 'X-Request-Id']),
  },
  PreconditionFailed: errorAnswer(
    'If-Match does not match: the resource changed since that ETag',
    EXAMPLES_OF_RESPONSE.PreconditionFailed!,
  ),
  IdempotencyKeyReused: errorAnswer(
    'The Idempotency-Key was used with another request (method, path or body)',
    EXAMPLES_OF_RESPONSE.IdempotencyKeyReused!,
  ),
  IdempotencyKeyRunning: errorAnswer(IDEMPOTENCY_RUNNING, EXAMPLES_OF_RESPONSE.IdempotencyKeyRunning!, [
    'Retry-After',
  ]),
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

interface RouteTable {
  /** The documented routes by `METHOD /path/{param}`. */
  routes: ReadonlyMap<string, RouteOptions>;
}

export function forClients(doc: OpenApiDocument, table: RouteTable): OpenApiDocument {
  const named = new Map(
    Object.entries(standardKeywords(doc.components.schemas ?? {}) as Record<string, Json>),
  );
  doc.paths = hoistNamed(standardKeywords(doc.paths), named) as OpenApiDocument['paths'];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = table.routes.get(`${method.toUpperCase()} ${path}`);
      if (!route) throw new Error(`The document has ${method.toUpperCase()} ${path}, which no route serves`);
      describeOperation(operation, route, method.toUpperCase());
    }
  }
  doc.components = {
    ...doc.components,
    schemas: Object.fromEntries([...named].sort(([a], [b]) => a.localeCompare(b))),
    responses: RESPONSES,
    parameters: PARAMETERS,
    headers: HEADERS,
  };
  doc.components.examples = usedExamples(doc);
  checkOperationIds(doc);
  return doc;
}

/** Headers, request headers and answers that follow from the route's declarations and kind. */
function describeOperation(operation: Operation, route: RouteOptions, method: string) {
  const schema = route.schema ?? {};
  const responses = operation.responses;
  const idempotent = takesIdempotencyKey(route.config);
  // Every JSON answer to a GET carries an ETag, lists included (src/http/pipeline/conditional.ts); files do not.
  const tagged = method === 'GET' && jsonSchemaOf(responses['200']) !== undefined;
  const target = conditionalTargetOf(route.config);
  const parameters = operation.parameters ?? [];

  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const standard = STANDARD_ERRORS[code];
    if (standard && response.description === standard.description && isErrorAnswer(response)) {
      responses[status] = ref('responses', standard.name);
      continue;
    }
    if (response.description === 'Default Response') response.description = STATUS_CODES[code] ?? status;
    const names = [...(HEADERS_OF_STATUS[code] ?? []), ...(schema.answers?.[code]?.headers ?? [])];
    if (code < 400) {
      if (route.config?.rateLimitBucket !== 'none') names.push(...RATE_LIMIT);
      if (code === 201) names.push('Location');
      if (schema.setsCookie) names.push('Set-Cookie');
      if (idempotent && code < 300) names.push('Idempotent-Replayed');
      if (tagged && code === 200) names.push('ETag');
    }
    if (code === 503 && isErrorAnswer(response)) names.push('Retry-After');
    // A route's own error answer shows the example of every code of its status.
    if (code >= 400 && isErrorAnswer(response)) {
      response.content!['application/json']!.examples = exampleRefs(examplesOfStatus(code));
    }
    response.headers = withHeaders(response.headers, [...names, 'X-Request-Id']);
  }
  if (idempotent) {
    parameters.push(ref('parameters', 'IdempotencyKey'));
    responses['422'] = ref('responses', 'IdempotencyKeyReused');
    const own = responses['409'];
    if (own?.description) {
      own.description += '; or the same Idempotency-Key is still running (with Retry-After)';
      own.headers = withHeaders(own.headers, ['Retry-After']);
    } else {
      responses['409'] = ref('responses', 'IdempotencyKeyRunning');
    }
  }
  if (tagged) {
    parameters.push(ref('parameters', 'IfNoneMatch'));
    responses['304'] = ref('responses', 'NotModified');
  }
  if (target) {
    parameters.push(ref('parameters', 'IfMatch'));
    responses['412'] = ref('responses', 'PreconditionFailed');
  }
  if (parameters.length > 0) operation.parameters = parameters;
  // No body at all is an empty one there (an approval's optional comment): nothing need be sent.
  const required = (schema.body as { required?: string[] } | undefined)?.required ?? [];
  if (operation.requestBody && [route.preValidation].flat().includes(optionalBody) && required.length === 0) {
    operation.requestBody.required = false;
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

const jsonSchemaOf = (response: Response | undefined) => response?.content?.['application/json']?.schema;

/** The examples of error bodies the document refers to, in the order of the error catalogue. */
function usedExamples(doc: OpenApiDocument): Record<string, Json> {
  const used = new Set(
    JSON.stringify(doc)
      .match(/#\/components\/examples\/\w+/g)
      ?.map((r) => r.slice(22)),
  );
  return Object.fromEntries(Object.entries(EXAMPLE_OBJECTS).filter(([name]) => used.has(name)));
}

const isErrorAnswer = (response: Response) => jsonSchemaOf(response)?.$ref === '#/components/schemas/Error';

/** The response's headers as references; one declared inline (a collection's Link) becomes its reference. */
function withHeaders(own: Record<string, Json> = {}, names: readonly string[]): Record<string, Json> {
  const headers: Record<string, Json> = {};
  for (const [name, value] of Object.entries(own))
    headers[name] = HEADERS[name] ? ref('headers', name) : value;
  for (const name of names) {
    if (!HEADERS[name]) throw new Error(`Header ${name} is not described under components.headers`);
    headers[name] = ref('headers', name);
  }
  return headers;
}

/** Values that are data, not schemas: never searched for titles or keywords. */
const DATA = new Set(['default', 'example', 'examples', 'enum', 'const']);

function mapTree(node: unknown, visit: (object: Json) => Json): unknown {
  if (Array.isArray(node)) return node.map((item) => mapTree(item, visit));
  if (typeof node !== 'object' || node === null) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) copy[key] = DATA.has(key) ? value : mapTree(value, visit);
  return visit(copy);
}

/**
 * Validation's own keywords (src/http/schemas/validation.ts) as standard JSON Schema: `notBlank` as the pattern it
 * amounts to, a character that is not white space; `singleLine` and `multiline` as the patterns of the
 * control characters they refuse (with `notBlank`, one pattern says both).
 */
function standardKeywords(node: unknown): unknown {
  return mapTree(node, (schema) => {
    if (!('notBlank' in schema || 'singleLine' in schema || 'multiline' in schema)) return schema;
    const { notBlank, singleLine, multiline, ...rest } = schema;
    if (rest.pattern !== undefined) return rest;
    const lines = multiline === true ? 'several' : singleLine === true ? 'one' : null;
    const pattern = lines ? TEXT_PATTERNS[lines][notBlank === true ? 'notBlank' : 'any'] : '\\S';
    return notBlank === true || lines ? { ...rest, pattern } : rest;
  });
}

/**
 * Every schema with a `title` (TypeBox's option on the resources, inputs and envelopes) moves under
 * `components.schemas` by that name and is referenced. Two different schemas with one name would
 * make one of them lie: that fails here, when the document is built.
 */
function hoistNamed(node: unknown, named: Map<string, Json>): unknown {
  return mapTree(node, (schema) => {
    const { title, ...body } = schema;
    if (typeof title !== 'string' || !isSchema(body)) return schema;
    const known = named.get(title);
    if (known && !isDeepStrictEqual(known, body)) {
      throw new Error(`Two different schemas are named ${title}: give one of them another title`);
    }
    named.set(title, body);
    return ref('schemas', title);
  });
}

const isSchema = (node: Json) =>
  ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref'].some((key) => key in node);

function checkOperationIds(doc: OpenApiDocument): void {
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const id = operation.operationId;
      if (!id) problems.push(`${where} has no operationId`);
      else if (seen.has(id)) problems.push(`${where} and ${seen.get(id)} share the operationId ${id}`);
      else seen.set(id, where);
    }
  }
  if (problems.length > 0) throw new Error(`OpenAPI document: ${problems.join('; ')}`);
}
