import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerOpenApi } from '../src/http/documentation/openapi.js';

type Json = Record<string, any>;

describe('OpenAPI document checks at build time', () => {
  async function documentOf(routes: (app: ReturnType<typeof Fastify>) => void): Promise<() => unknown> {
    const app = Fastify();
    await registerOpenApi(app, '0.0.0', 'http://api.test');
    routes(app);
    await app.ready();
    return () => app.swagger();
  }
  const config = { access: 'public' } as const;

  it('names a schema used by two routes once', async () => {
    const Thing = Type.Object({ a: Type.String() }, { title: 'Thing' });
    const swagger = await documentOf((app) => {
      app.get('/a', { config, schema: { operationId: 'getA', response: { 200: Thing } } }, () => ({
        a: 'x',
      }));
      app.get('/b', { config, schema: { operationId: 'getB', response: { 200: Thing } } }, () => ({
        a: 'x',
      }));
    });
    const document = swagger() as Json;
    expect(document.components.schemas.Thing).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
    expect(document.paths['/b'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Thing',
    });
  });

  it('refuses two different schemas with one name', async () => {
    const swagger = await documentOf((app) => {
      const a = Type.Object({ a: Type.String() }, { title: 'Thing' });
      const b = Type.Object({ b: Type.String() }, { title: 'Thing' });
      app.get('/a', { config, schema: { operationId: 'getA', response: { 200: a } } }, () => ({ a: 'x' }));
      app.get('/b', { config, schema: { operationId: 'getB', response: { 200: b } } }, () => ({ b: 'x' }));
    });
    expect(swagger).toThrow('Two different schemas are named Thing');
  });

  it('refuses an operation without an operationId, or two with one', async () => {
    const swagger = await documentOf((app) => {
      app.get('/a', { config, schema: { operationId: 'getA' } }, () => 'a');
      app.get('/b', { config, schema: { operationId: 'getA' } }, () => 'b');
      app.get('/c', { config, schema: {} }, () => 'c');
    });
    expect(swagger).toThrow('GET /b and GET /a share the operationId getA; GET /c has no operationId');
  });
});
