import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifyRequest } from 'fastify';

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
  // `notBlank: true` on a string schema: spaces alone are as empty as nothing (names, titles).
  ajv.addKeyword({
    keyword: 'notBlank',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (enabled: boolean, data: string) => !enabled || data.trim().length > 0,
  });
  return ajv;
}

/**
 * Bodies are validated strictly (no coercion: `"5"` is not a number); params and query strings arrive
 * as text, so they are coerced. Unknown properties are reported, never silently dropped.
 */
export function registerValidation(app: FastifyInstance): void {
  // Many clients send `Content-Type: application/json` with no body on action routes (publish, logout):
  // an empty body is "no body", not malformed JSON. Prototype poisoning is still refused.
  const parseJson = app.getDefaultJsonParser('error', 'remove');
  app.removeContentTypeParser('application/json');
  // Only JSON is accepted (multipart is added by the routes that take files); anything else is a 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, done);
  });

  const strict = build(false);
  const coercing = build(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
}

/**
 * For routes whose body is optional as a whole (an approval with an optional comment): no body at all
 * is an empty object, so the schema's own rules apply to what was sent.
 */
export const optionalBody = async (request: FastifyRequest): Promise<void> => {
  request.body ??= {};
};
