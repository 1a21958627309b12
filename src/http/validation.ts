import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

const shared: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
  // Fastify and TypeBox keywords that are documentation, not validation.
  keywords: ['example'],
};

function build(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ ...shared, coerceTypes });
  addFormats.default(ajv, { mode: 'full' });
  return ajv;
}

/**
 * Bodies are validated strictly (no coercion: `"5"` is not a number); params and query strings arrive
 * as text, so they are coerced. Unknown properties are reported, never silently dropped.
 */
export function registerValidation(app: FastifyInstance): void {
  const strict = build(false);
  const coercing = build(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
}
