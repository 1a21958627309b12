import type { FastifyServerOptions } from 'fastify';
import fastJsonStringify, { type Options } from 'fast-json-stringify';

type Schema = Record<string, unknown>;
type Serializer = (doc: unknown) => string;
type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/** Keywords that only document a schema: two answers that differ only in these serialize alike. */
const DOCUMENTATION = new Set(['description', 'title', 'examples', 'example', 'deprecated']);
const SUBSCHEMA = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SUBSCHEMA_LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'];
const SUBSCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const UNIONS = ['anyOf', 'oneOf', 'allOf', '$ref', 'if', 'const'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ type: 'null' }` alone, as `Type.Null()` writes it. */
const isNull = (schema: unknown): boolean =>
  isSchema(schema) &&
  schema.type === 'null' &&
  Object.keys(schema).every((key) => key === 'type' || DOCUMENTATION.has(key));

/**
 * The copy of a response schema the serializer compiles: documentation dropped, and `Nullable(X)`
 * (`anyOf: [X, { type: 'null' }]`) written as X with the type list `[X's type, 'null']` when X is a plain
 * typed schema. fast-json-stringify serializes a union by running an Ajv validator on the value, field by
 * field, and builds an Ajv instance with every format for each schema holding one; a type list is a
 * `typeof` check. (Not `nullable: true`: Ajv, which still checks the branches of real unions such as a
 * list's two shapes, lets null through neither a type list nor an enum.) A value that fits neither type
 * is refused as before; outside real unions an enum is no longer checked on the way out.
 */
export function serializable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializable);
  if (!isSchema(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DOCUMENTATION.has(key)) continue;
    if (SUBSCHEMA_MAP.includes(key) && isSchema(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, serializable(sub)]));
    } else if (SUBSCHEMA.includes(key) || SUBSCHEMA_LIST.includes(key)) {
      copy[key] = serializable(value);
    } else {
      copy[key] = value;
    }
  }
  const union = copy.anyOf ?? copy.oneOf;
  if (Array.isArray(union) && union.length === 2 && union.some(isNull)) {
    const other: unknown = (union as unknown[]).find((member) => !isNull(member));
    if (isSchema(other) && typeof other.type === 'string' && !UNIONS.some((key) => key in other)) {
      const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = copy;
      // A nullable enum (an aggregation method, a status) lists null among its values too.
      const values = Array.isArray(other.enum) ? { enum: [...(other.enum as unknown[]), null] } : {};
      return { ...rest, ...other, type: [other.type, 'null'], ...values };
    }
  }
  return copy;
}

/**
 * Fastify's serializer factory (fast-json-stringify, as its default one), compiling each distinct
 * answer once: Fastify compiles every status of every route, and most of those 1,567 schemas are the
 * same few error answers (123 distinct). Compiled apart, they held 55 MB of the idle service's heap.
 * Fastify asks for a compiler per plugin context, each with the shared schemas it sees; answers are
 * shared between compilers that see the same shared schemas.
 */
export function dedupedSerializers(): SerializerFactory {
  const byShared = new Map<string, Map<string, Serializer>>();
  return (externalSchemas, options) => {
    const shared = Object.fromEntries(
      Object.entries((externalSchemas ?? {}) as Record<string, unknown>).map(([id, sub]) => [
        id,
        serializable(sub),
      ]),
    );
    const sharedKey = JSON.stringify([shared, options ?? {}]);
    let cache = byShared.get(sharedKey);
    if (!cache) {
      cache = new Map<string, Serializer>();
      byShared.set(sharedKey, cache);
    }
    return ({ schema }) => {
      const answer = serializable(schema) as Schema;
      const key = JSON.stringify(answer);
      let serializer = cache.get(key);
      if (!serializer) {
        // As Fastify's own compiler: a schema that is itself a shared one is not passed twice.
        const external = { ...shared };
        if (typeof answer.$id === 'string') delete external[answer.$id];
        const fjsOptions: Options = { ...options, schema: external as Options['schema'] };
        serializer = fastJsonStringify(answer, fjsOptions) as Serializer;
        cache.set(key, serializer);
      }
      return serializer;
    };
  };
}
