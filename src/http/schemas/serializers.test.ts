import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it, vi } from 'vitest';
import { Collection, CollectionOfEither } from './pagination.js';
import { Nullable, Timestamp } from './schemas.js';
import { dedupedSerializers, serializable } from './serializers.js';

const Project = Type.Object({
  id: Type.String({ format: 'uuid' }),
  // A property named like a documentation keyword stays a property.
  description: Nullable(Type.String({ description: 'Free text' })),
  budget: Nullable(Type.Number()),
  closedAt: Nullable(Timestamp()),
  lead: Nullable(Type.Object({ name: Type.String(), email: Nullable(Type.String()) })),
  tags: Type.Array(Type.String(), { description: 'Labels' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('closed')]),
  method: Nullable(Type.String({ enum: ['sum', 'average'] })),
  phase: Nullable(Type.Literal('pilot')),
});

const samples = [
  {
    id: '018f3173-7000-7d01-bf07-1dc738453d70',
    description: 'Wells "north" \u2028 and <script>',
    budget: 1250.5,
    closedAt: new Date('2026-03-01T10:00:00.123Z'),
    lead: { name: 'Achieng', email: null },
    tags: ['water'],
    status: 'active',
    method: 'sum',
    phase: 'pilot',
  },
  {
    id: '018f3173-7000-7d01-bf07-1dc738453d71',
    description: null,
    budget: null,
    closedAt: null,
    lead: null,
    tags: [],
    status: 'closed',
    method: null,
    phase: null,
  },
  // A timestamp already written as text, as a stored snapshot holds it.
  {
    id: '018f3173-7000-7d01-bf07-1dc738453d72',
    description: '',
    budget: 0,
    closedAt: '2026-03-01T10:00:00.000Z',
    lead: null,
    tags: [],
    status: 'active',
    method: 'average',
    phase: null,
  },
];

describe('serializable', () => {
  it('writes Nullable(X) as X with a type list, drops documentation, keeps properties named like keywords', () => {
    const copy = serializable(Project) as { properties: Record<string, Record<string, unknown>> };
    expect(copy.properties.description).toEqual({ type: ['string', 'null'] });
    expect(copy.properties.closedAt).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(copy.properties.lead).toMatchObject({ type: ['object', 'null'] });
    expect(copy.properties.lead!.anyOf).toBeUndefined();
    expect(copy.properties.tags).toEqual({ type: 'array', items: { type: 'string' } });
    expect(copy.properties.method).toEqual({ type: ['string', 'null'], enum: ['sum', 'average', null] });
    // A literal keeps its union.
    expect(copy.properties.phase!.anyOf).toHaveLength(2);
    // A real union stays one.
    expect(copy.properties.status!.anyOf).toHaveLength(2);
    expect(Object.keys(copy.properties)).toContain('description');
  });

  it('serializes exactly as fast-json-stringify does with the schema as written', () => {
    const ours = fastJsonStringify(serializable(Project) as object);
    const theirs = fastJsonStringify(Project);
    for (const sample of samples) {
      expect(ours(sample)).toBe(theirs(sample));
      expect(JSON.parse(ours(sample))).toEqual(JSON.parse(JSON.stringify(sample)));
    }
  });

  it('keeps null values valid inside a real union, which fast-json-stringify checks with Ajv', () => {
    // A list answers either a bare array or a page envelope (src/http/schemas/pagination.ts).
    const List = Type.Union([
      Type.Array(Project),
      Type.Object({ items: Type.Array(Project), total: Type.Integer() }),
    ]);
    const ours = fastJsonStringify(serializable(List) as object);
    const theirs = fastJsonStringify(List as object);
    for (const answer of [samples, { items: samples, total: 3 }]) {
      expect(ours(answer)).toBe(theirs(answer));
    }
  });
});

describe('serializable: unions told apart without validating the value', () => {
  const Titled = Type.Object(Project.properties, { title: 'Project' });
  const WithProgress = Type.Object(
    { ...Project.properties, progress: Type.Object({ value: Nullable(Type.Number()) }) },
    { title: 'ProjectProgress' },
  );
  const withProgress = samples.map((sample, i) => ({ ...sample, progress: { value: i === 1 ? null : i } }));
  const page = <T>(data: T[]) => ({ data, meta: { total: data.length, page: 1, limit: 20, totalPages: 1 } });

  it('chooses a collection’s array or page by its JSON type', () => {
    const copy = serializable(Collection(Titled)) as Record<string, Record<string, unknown>>;
    expect(copy.anyOf).toBeUndefined();
    expect(copy.if).toEqual({ type: 'array' });
    const ours = fastJsonStringify(copy);
    const theirs = fastJsonStringify(Collection(Titled) as object);
    for (const answer of [samples, [], page(samples), page([])]) {
      expect(ours(answer)).toBe(theirs(answer));
    }
  });

  it('chooses between two kinds of item by a property only one of them requires, list and page alike', () => {
    // Ajv (strict) warns on the console of a keyword without its type: the service's log would show it.
    const warn = vi.spyOn(console, 'warn');
    const schema = CollectionOfEither(WithProgress, Titled);
    const copy = serializable(schema) as Record<string, Record<string, unknown>>;
    expect(copy.if).toEqual({ type: 'array', items: { type: 'object', required: ['progress'] } });
    const ours = fastJsonStringify(copy);
    const theirs = fastJsonStringify(schema as object);
    for (const answer of [withProgress, samples, [], page(withProgress), page(samples), page([])]) {
      expect(ours(answer)).toBe(theirs(answer));
    }
    // The kind decides what is written: an item without progress is not given one, and vice versa.
    expect(JSON.parse(ours(samples))[0]).not.toHaveProperty('progress');
    expect(JSON.parse(ours(page(withProgress))).data[1].progress).toEqual({ value: null });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('chooses text or a list of text by type (an error’s message)', () => {
    const Message = Type.Object({ message: Type.Union([Type.String(), Type.Array(Type.String())]) });
    const ours = fastJsonStringify(serializable(Message) as object);
    const theirs = fastJsonStringify(Message);
    for (const answer of [{ message: 'Not found' }, { message: ['a', 'b "c"'] }]) {
      expect(ours(answer)).toBe(theirs(answer));
    }
  });

  it('tells members apart only by keys the other member never has', () => {
    const Full = Type.Object({ data: Type.Array(Type.Object({ p: Type.String(), q: Type.String() })) });
    // The second member declares `data` too, optional: its values without it must not be taken for the first.
    const Loose = Type.Object({
      data: Type.Optional(Type.Array(Type.Object({ q: Type.String() }))),
      n: Type.Integer(),
    });
    const Either = Type.Union([Full, Loose]);
    const ours = fastJsonStringify(serializable(Either) as object);
    const theirs = fastJsonStringify(Either as object);
    for (const answer of [{ data: [{ p: 'a', q: 'b' }] }, { n: 3 }, { data: [{ q: 'c' }], n: 1 }]) {
      expect(ours(answer)).toBe(theirs(answer));
    }
  });

  it('keeps a union whose members nothing cheap tells apart, validated as before', () => {
    const Same = Type.Union([Type.Object({ a: Type.String() }), Type.Object({ a: Type.Number() })]);
    expect((serializable(Same) as Record<string, unknown>).anyOf).toHaveLength(2);
    const Numbers = Type.Union([Type.Integer(), Type.Number()]);
    expect((serializable(Numbers) as Record<string, unknown>).anyOf).toHaveLength(2);
  });
});

describe('dedupedSerializers', () => {
  it('compiles an answer once for every route and status that repeats it, and answers as declared', async () => {
    const built: unknown[] = [];
    const factory = dedupedSerializers();
    const app = Fastify({
      schemaController: {
        compilersFactory: {
          buildSerializer: (external, options) => {
            const compile = factory(external, options);
            return (route) => {
              const serializer = compile(route);
              built.push(serializer);
              return serializer;
            };
          },
        },
      },
    });
    app.addSchema({ $id: 'Problem', type: 'object', properties: { message: Type.String() } });
    const problem = (description: string) => ({ $ref: 'Problem#', description });
    for (const path of ['/a', '/b', '/c']) {
      app.get(
        path,
        {
          schema: { response: { 200: Project, 404: problem(`Not found at ${path}`), 500: problem('Oops') } },
        },
        async (request, reply) =>
          path === '/c' ? reply.code(404).send({ message: 'gone', extra: 1 }) : samples[0],
      );
    }
    await app.ready();
    // Three statuses of three GET routes and their HEAD twins.
    expect(built).toHaveLength(18);
    // One serializer for the project, one for every problem answer whatever its description.
    expect(new Set(built).size).toBe(2);

    const ok = await app.inject({ method: 'GET', url: '/a' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual(JSON.parse(JSON.stringify(samples[0])));
    const missing = await app.inject({ method: 'GET', url: '/c' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ message: 'gone' });
    await app.close();
  });
});
