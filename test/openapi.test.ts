import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers/app.js';
import { call } from './helpers/http.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await call(t.app, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(res.body));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('lists every API route with its security and error responses', async () => {
    const { body: doc } = await call(t.app, 'GET', '/api/openapi.json');
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const apiRoutes = t.app.routeTable.filter((r) => !r.url.startsWith('/api') && r.url !== '*');
    expect(apiRoutes.length).toBeGreaterThan(20);
    for (const route of apiRoutes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      expect(documented, `${route.method} ${path}`).toContain(`${route.method} ${path}`);
    }

    const members = doc.paths['/orgs/{orgId}/members'].post;
    expect(members.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }]);
    expect(Object.keys(members.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '429']),
    );
    expect(members.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    // The invitation page shares its path with the JSON route; the document keeps the JSON route.
    const invitation = doc.paths['/invitations/{token}'].get;
    expect(invitation.tags).toEqual(['Members and invitations']);
    expect(Object.keys(invitation.responses['200'].content)).toEqual(['application/json']);
    const register = doc.paths['/auth/register'].post;
    expect(register.security).toEqual([]);
    expect(register.responses['401']).toBeUndefined();
    expect(doc.components.securitySchemes).toEqual({
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'jwt' },
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    expect(doc.components.schemas.Error.required).toEqual(['statusCode', 'message', 'error']);
  });

  it('serves the interactive documentation at /api', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });
});
