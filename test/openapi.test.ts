import { readFileSync } from 'node:fs';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditionalTargetOf } from '../src/http/pipeline/conditional.js';
import { takesIdempotencyKey } from '../src/http/pipeline/idempotency.js';
import { ruleOfPattern } from '../src/lib/patterns.js';
import { TEXT_PATTERNS } from '../src/lib/text.js';
import { FORM_WORKER_PATH } from '../src/modules/pages/form-page.js';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call, TEST_BASE_URL } from './helpers/http.js';

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await call(t.app, 'GET', '/api/openapi.json')).body;
});
afterAll(() => t.close());

/** Every operation of the document with the route behind it. */
function operations(): { method: string; path: string; url: string; op: Json }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      url: path.replace(/\{(\w+)\}/g, ':$1'),
      op: op as Json,
    })),
  );
}
const operation = (id: string) => operations().find(({ op }) => op.operationId === id)!.op;

/** A `$ref` within the document, followed. */
function resolve(node: Json): Json {
  if (typeof node?.$ref !== 'string') return node;
  const target = node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  return resolve(target);
}
const response = (id: string, status: number) => resolve(operation(id).responses[status]);
const headersOf = (id: string, status: number) => Object.keys(response(id, status).headers ?? {});
const parameterNames = (op: Json) => (op.parameters ?? []).map((p: Json) => resolve(p).name);
const successes = (op: Json) =>
  Object.entries(op.responses as Json).filter(([status]) => /^[23]/.test(status) && status !== '304');

const HIDDEN = ['/assets/:name', FORM_WORKER_PATH];

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document on BASE_URL', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: TEST_BASE_URL, description: 'This service (BASE_URL)' }]);
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('lists every API route with its security and error responses', () => {
    const documented = new Set(operations().map(({ method, path }) => `${method} ${path}`));
    const apiRoutes = t.app.routeTable.filter(
      (r) => !r.url.startsWith('/api') && r.url !== '*' && !HIDDEN.includes(r.url),
    );
    expect(apiRoutes.length).toBeGreaterThan(20);
    for (const route of apiRoutes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      expect(documented, `${route.method} ${path}`).toContain(`${route.method} ${path}`);
    }
    for (const hidden of ['/assets/{name}', FORM_WORKER_PATH]) expect(doc.paths[hidden]).toBeUndefined();

    const invite = operation('inviteMember');
    expect(invite.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }]);
    expect(Object.keys(invite.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409', '429']),
    );
    expect(resolve(invite.requestBody.content['application/json'].schema).additionalProperties).toBe(false);
    // The invitation page shares its path with the JSON route; the document keeps the JSON route.
    const invitation = operation('getInvitation');
    expect(invitation.tags).toEqual(['Members and invitations']);
    expect(Object.keys(invitation.responses['200'].content)).toEqual(['application/json']);
    const register = operation('registerUser');
    expect(register.security).toEqual([]);
    expect(register.responses['401']).toBeUndefined();
    expect(doc.components.securitySchemes).toEqual({
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'jwt' },
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    expect(doc.components.schemas.Error.required).toEqual(
      expect.arrayContaining(['statusCode', 'message', 'error']),
    );
  });

  it('names every operation once, as test/fixtures/operation-ids.json lists them', () => {
    const ids = operations().map(({ op }) => op.operationId as string);
    expect(ids.every((id) => /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // A renamed or new operation is a change of the client's API: update the list with it, deliberately.
    const listed = operations()
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method))
      .map(({ method, path, op }) => `${method} ${path}: ${op.operationId}`);
    const fixture = JSON.parse(
      readFileSync(new URL('./fixtures/operation-ids.json', import.meta.url), 'utf8'),
    );
    expect(listed).toEqual(fixture);
  });

  it('describes every tag it uses', () => {
    const described = new Map((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
    for (const { op } of operations()) {
      for (const tag of op.tags) expect(described.get(tag), tag).toMatch(/\w/);
    }
  });

  it('gives every JSON body of an /orgs route a named schema', () => {
    const named = (schema: Json): boolean =>
      typeof schema.$ref === 'string' ||
      (schema.type === 'array' && named(schema.items)) ||
      (Array.isArray(schema.anyOf) && schema.anyOf.every(named));
    let checked = 0;
    for (const { method, path, op } of operations().filter(({ path }) => path.startsWith('/orgs'))) {
      const bodies = [
        op.requestBody?.content?.['application/json']?.schema,
        ...successes(op).map(([, answer]) => resolve(answer).content?.['application/json']?.schema),
      ].filter(Boolean);
      for (const schema of bodies) expect(named(schema), `${method} ${path}`).toBe(true);
      checked += bodies.length;
    }
    expect(checked).toBeGreaterThan(100);
    for (const name of [
      'Project',
      'ProjectCreate',
      'ProjectUpdate',
      'ProjectList',
      'ProjectPage',
      'PageMeta',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(operation('createProject').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ProjectCreate',
    });
    expect(response('listProjects', 200).content['application/json'].schema.anyOf).toEqual([
      { $ref: '#/components/schemas/ProjectList' },
      { $ref: '#/components/schemas/ProjectPage' },
    ]);
    expect(doc.components.schemas.ProjectPage.properties.meta).toEqual({
      $ref: '#/components/schemas/PageMeta',
    });
    expect(response('approveIndicatorReport', 200).content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/IndicatorReport',
    });
  });

  it('publishes only standard keywords, with each required property defined', () => {
    const ALLOWED = new Set(
      (
        '$ref $defs $comment $anchor $dynamicRef title description default examples example deprecated readOnly ' +
        'writeOnly type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength ' +
        'minLength pattern maxItems minItems uniqueItems maxContains minContains maxProperties minProperties ' +
        'required dependentRequired properties patternProperties additionalProperties propertyNames items ' +
        'prefixItems contains allOf anyOf oneOf not if then else dependentSchemas unevaluatedItems ' +
        'unevaluatedProperties format contentMediaType contentEncoding contentSchema discriminator xml externalDocs'
      ).split(' '),
    );
    const MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
    const problems: string[] = [];
    const visit = (schema: unknown, where: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Json;
      for (const key of Object.keys(node)) if (!ALLOWED.has(key)) problems.push(`${where}: ${key}`);
      if (node.properties && node.required) {
        for (const name of node.required)
          if (!(name in node.properties)) problems.push(`${where}: requires ${name}`);
      }
      for (const [key, value] of Object.entries(node)) {
        if (MAPS.includes(key))
          for (const [name, sub] of Object.entries(value as Json)) visit(sub, `${where}/${name}`);
        else if (Array.isArray(value) && ['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key)) {
          value.forEach((sub, i) => visit(sub, `${where}/${key}/${i}`));
        } else if (['items', 'not', 'if', 'then', 'else', 'contains', 'additionalProperties'].includes(key)) {
          visit(value, `${where}/${key}`);
        }
      }
    };
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) visit(schema, name);
    const everySchema = (node: unknown, where: string): void => {
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'schema') visit(value, where);
        else everySchema(value, `${where}/${key}`);
      }
    };
    everySchema(doc.paths, 'paths');
    everySchema(doc.components.parameters, 'parameters');
    everySchema(doc.components.headers, 'headers');
    expect(problems).toEqual([]);
    // `notBlank` and `singleLine` stay validation's own keywords; the document says what they mean.
    expect(doc.components.schemas.ProjectCreate.properties.name).toMatchObject({
      minLength: 1,
      pattern: TEXT_PATTERNS.one.notBlank,
    });
  });

  it('documents multipart bodies, files, CSV exports, redirects and pages', () => {
    const upload = operation('uploadAttachment').requestBody.content;
    expect(Object.keys(upload)).toEqual(['multipart/form-data']);
    expect(resolve(upload['multipart/form-data'].schema)).toMatchObject({
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' }, title: { type: 'string', maxLength: 200 } },
    });
    const submit = operation('submitPublicForm').requestBody.content;
    expect(Object.keys(submit)).toEqual(['application/json', 'multipart/form-data']);
    expect(resolve(submit['multipart/form-data'].schema)).toMatchObject({
      properties: { data: { type: 'string', contentMediaType: 'application/json' } },
      additionalProperties: { type: 'string', format: 'binary' },
    });
    for (const id of ['downloadAttachment', 'downloadSubmissionFile', 'downloadSharedReportAttachment']) {
      const file = response(id, 200);
      expect(file.content['application/pdf'].schema, id).toEqual({ type: 'string', format: 'binary' });
      expect(Object.keys(file.content), id).toContain('image/png');
      expect(Object.keys(file.headers), id).toContain('Content-Disposition');
    }
    expect(Object.keys(response('exportFormSubmissions', 200).content)).toEqual(['text/csv']);
    // Errors stay JSON whatever the success answer is.
    expect(Object.keys(response('exportFormSubmissions', 404).content)).toEqual(['application/json']);
    for (const id of ['startExternalSignIn', 'finishExternalSignIn']) {
      expect(
        successes(operation(id)).map(([status]) => status),
        id,
      ).toEqual(['302']);
      expect(headersOf(id, 302), id).toEqual(expect.arrayContaining(['Location', 'Set-Cookie']));
    }
    for (const id of ['getFormPage', 'getSharedReportPage', 'getResetPasswordPage', 'getVerifyEmailPage']) {
      expect(Object.keys(response(id, 200).content), id).toEqual(['text/html']);
    }
    for (const { method, path, op } of operations()) {
      expect(successes(op).length, `${method} ${path}`).toBeGreaterThan(0);
    }
    // An approval's comment is optional, and so is its whole body; a rejection's comment is not.
    expect(operation('approveIndicatorReport').requestBody.required).toBe(false);
    expect(operation('shareReport').requestBody.required).toBe(false);
    expect(operation('rejectIndicatorReport').requestBody.required).toBe(true);
    expect(operation('createProject').requestBody.required).toBe(true);
  });

  it('describes response headers once and references them', () => {
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(['Set-Cookie', 'Location', 'ETag', 'Link', 'Retry-After', 'X-Request-Id']),
    );
    const cookies = operations()
      .filter(({ op }) => successes(op).some(([, answer]) => 'Set-Cookie' in (resolve(answer).headers ?? {})))
      .map(({ op }) => op.operationId)
      .sort();
    expect(cookies).toEqual([
      'createOrganization',
      'finishExternalSignIn',
      'issueToken',
      'registerUser',
      'signIn',
      'signOut',
      'startExternalSignIn',
    ]);
    let created = 0;
    for (const { op } of operations()) {
      if (!op.responses['201']) continue;
      created += 1;
      expect(headersOf(op.operationId, 201), op.operationId).toContain('Location');
    }
    expect(created).toBeGreaterThan(20);
    expect(headersOf('listProjects', 200)).toContain('Link');
    expect(operation('listProjects').responses['200'].headers.Link).toEqual({
      $ref: '#/components/headers/Link',
    });
    expect(headersOf('getProject', 200)).toEqual(
      expect.arrayContaining(['ETag', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
    );
    expect(headersOf('downloadAttachment', 200)).not.toContain('ETag');
    // Health checks are not counted: no rate-limit headers, no 429.
    expect(headersOf('getLiveness', 200)).toEqual(['ETag', 'X-Request-Id']);
    expect(operation('getReadiness').responses['429']).toBeUndefined();
    expect(headersOf('getProject', 429)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-RateLimit-Reset']),
    );
    expect(headersOf('getProject', 401)).toContain('WWW-Authenticate');
    expect(headersOf('signIn', 503)).toContain('Retry-After');
    for (const { method, path, op } of operations()) {
      for (const [status, answer] of Object.entries(op.responses as Json)) {
        expect(Object.keys(resolve(answer).headers ?? {}), `${method} ${path} ${status}`).toContain(
          'X-Request-Id',
        );
      }
    }
  });

  it('takes an Idempotency-Key where the service keeps answers for it', () => {
    const config = new Map(t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.config]));
    let keyed = 0;
    for (const { method, path, url, op } of operations()) {
      const takesKey = takesIdempotencyKey(config.get(`${method} ${url}`));
      expect(parameterNames(op).includes('Idempotency-Key'), `${method} ${path}`).toBe(takesKey);
      if (!takesKey) continue;
      keyed += 1;
      expect(op.responses['422'], `${method} ${path}`).toEqual({
        $ref: '#/components/responses/IdempotencyKeyReused',
      });
      expect(resolve(op.responses['409']).headers, `${method} ${path}`).toHaveProperty('Retry-After');
      for (const [status, answer] of successes(op)) {
        expect(Object.keys(resolve(answer).headers), `${method} ${path} ${status}`).toContain(
          'Idempotent-Replayed',
        );
      }
    }
    expect(keyed).toBeGreaterThan(20);
    expect(parameterNames(operation('submitPublicForm'))).toContain('Idempotency-Key');
    expect(parameterNames(operation('signIn'))).not.toContain('Idempotency-Key');
    // A route's own 409 keeps its description and tells of the key's too.
    expect(operation('createProject').responses['409'].description).toMatch(
      /^A project with this code already exists; or the same Idempotency-Key is still running/,
    );
    const key = resolve(
      operation('createProject').parameters.find((p: Json) => resolve(p).name === 'Idempotency-Key'),
    );
    expect(key).toMatchObject({ in: 'header', required: false, schema: { minLength: 1, maxLength: 255 } });
  });

  it('takes If-None-Match on JSON reads and If-Match on the writes that change a resource', () => {
    const config = new Map(t.app.routeTable.map((r) => [`${r.method} ${r.url}`, r.config]));
    let conditional = 0;
    for (const { method, path, url, op } of operations()) {
      const target = conditionalTargetOf(config.get(`${method} ${url}`));
      expect(parameterNames(op).includes('If-Match'), `${method} ${path}`).toBe(target !== null);
      expect(op.responses['412'] !== undefined, `${method} ${path}`).toBe(target !== null);
      if (target) conditional += 1;
    }
    expect(conditional).toBeGreaterThan(30);
    for (const id of ['updateProject', 'deleteProject', 'approveIndicatorReport', 'publishForm']) {
      expect(parameterNames(operation(id)), id).toContain('If-Match');
    }
    expect(parameterNames(operation('createProject'))).not.toContain('If-Match');
    for (const id of ['getProject', 'getIndicatorReport', 'getForm', 'getSharedReport']) {
      expect(parameterNames(operation(id)), id).toContain('If-None-Match');
      expect(operation(id).responses['304'], id).toEqual({ $ref: '#/components/responses/NotModified' });
    }
    for (const { method, path, op } of operations()) {
      const json = method === 'GET' && resolve(op.responses['200'])?.content?.['application/json'];
      expect(parameterNames(op).includes('If-None-Match'), `${method} ${path}`).toBe(Boolean(json));
    }
    expect(parameterNames(operation('listProjects'))).toContain('If-None-Match');
    expect(parameterNames(operation('downloadAttachment'))).not.toContain('If-None-Match');
    expect(response('updateProject', 412).content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('states the rule of every pattern in words, as a 400 says it', () => {
    const patterns = new Set<string>();
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') patterns.add(value);
        else if (key !== 'example' && key !== 'examples') visit(value);
      }
    };
    visit(doc);
    expect(patterns.size).toBeGreaterThan(5);
    const unworded = [...patterns].filter((pattern) => ruleOfPattern(pattern) === undefined);
    expect(unworded).toEqual([]);
    for (const pattern of patterns) expect(ruleOfPattern(pattern)).toMatch(/^(must|should) /);
  });

  it('serves the interactive documentation at /api', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });
});
