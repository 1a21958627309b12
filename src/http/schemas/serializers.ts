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
  if (!Array.isArray(union)) return copy;
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = copy;
  if (union.length === 2 && union.some(isNull)) {
    const other: unknown = (union as unknown[]).find((member) => !isNull(member));
    if (isPlain(other)) {
      // A nullable enum (an aggregation method, a status) lists null among its values too.
      const values = Array.isArray(other.enum) ? { enum: [...(other.enum as unknown[]), null] } : {};
      return { ...rest, ...other, type: [other.type, 'null'], ...values };
    }
  }
  const chosen = chooser(union as unknown[]);
  return chosen ? { ...rest, ...chosen } : copy;
}

/** A schema of one JSON type that is no union, reference or constant itself. */
const isPlain = (schema: unknown): schema is Schema & { type: string } =>
  isSchema(schema) && typeof schema.type === 'string' && !UNIONS.some((key) => key in schema);

/**
 * The smallest schema that values of `a` pass and values of `b` (of the same type) fail: a property
 * `a` requires and `b` does not, looked for through required properties and array items. Null when
 * there is none. An empty array passes: it serializes alike under either.
 */
function requiredDifference(a: Schema, b: Schema): Schema | null {
  if (a.type !== b.type) return null;
  // Each level names its type: Ajv's strict mode wants `items` and `required` under one.
  if (a.type === 'array' && isSchema(a.items) && isSchema(b.items)) {
    const items = requiredDifference(a.items, b.items);
    return items && { type: 'array', items };
  }
  if (a.type !== 'object') return null;
  const required = (schema: Schema) => (Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const props = (schema: Schema) => (isSchema(schema.properties) ? schema.properties : {});
  // A key `b` declares (even as optional) could be on its values too: it tells nothing apart.
  const onlyA = required(a).filter((key) => !required(b).includes(key) && !(key in props(b)));
  if (onlyA.length > 0) return { type: 'object', required: onlyA };
  for (const key of required(a)) {
    const [pa, pb] = [props(a)[key], props(b)[key]];
    const inner = isSchema(pa) && isSchema(pb) ? requiredDifference(pa, pb) : null;
    // Required here too: a value of `b` without the key must not pass on an unchecked property.
    if (inner) return { type: 'object', required: [key], properties: { [key]: inner } };
  }
  return null;
}

/**
 * A union of plain schemas (a collection's array and page, or the two kinds of item of
 * `CollectionOfEither`; an error's `message`, text or list) written as if/then/else on what tells its
 * members apart: the JSON type, then a property one requires and the other does not. fast-json-stringify
 * picks a union's member by validating the whole value against each in turn with Ajv (every item of a
 * list, every format: half a millisecond for 200 indicators); a type and a required key are checked in
 * a few steps. A value that fits no member is written by the last one (as any schema's extra is), and a
 * member's values are no longer checked on the way out (an enum, a format, a null where an object is
 * required): as for every answer that is no union, the handlers' types are what keeps them right.
 * Null where the members cannot be told apart so (then the union stays, validated as before).
 */
function chooser(members: unknown[]): Schema | null {
  if (members.length < 2 || !members.every(isPlain)) return null;
  const types = members.map((member) => member.type);
  // An integer is a number too: which member comes first would matter.
  if (types.includes('integer') && types.includes('number')) return null;
  const tests: Schema[] = [];
  for (const [i, member] of members.entries()) {
    const later = members.slice(i + 1).filter((other) => other.type === member.type);
    if (later.length === 0) {
      tests.push({ type: member.type });
      continue;
    }
    if (later.length > 1) return null;
    const difference = requiredDifference(member, later[0]!);
    if (!difference) return null;
    tests.push(difference);
  }
  // From the last member back: each test chooses its member, or hands on to the rest.
  let chain: Schema = members[members.length - 1]!;
  for (let i = members.length - 2; i >= 0; i--) chain = { if: tests[i], then: members[i], else: chain };
  return chain;
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
