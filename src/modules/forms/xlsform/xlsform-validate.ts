import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { ErrorDetail } from '../../../errors/catalogue.js';
import {
  FINITE,
  MULTI_LINE,
  NO_NUL,
  SINGLE_LINE,
  violations,
  WELL_FORMED,
} from '../../../http/errors/violations.js';
import { guarded } from '../../../http/schemas/validation.js';
import { UUID_PATTERN } from '../../../lib/ids.js';
import { hasControl, hasLoneSurrogate, hasNul } from '../../../lib/text.js';
import { CreateFormBody } from '../forms.schemas.js';

/**
 * The body of POST /orgs/:orgId/forms, checked as that route checks it (the same schema, guarded the
 * same way, the same keywords), for a form read from a spreadsheet rather than sent as JSON.
 */
let validate: ValidateFunction | undefined;

function compile(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false, keywords: ['example', 'multiline'] });
  addFormats.default(ajv, { mode: 'full' });
  ajv.addFormat('uuid', UUID_PATTERN);
  ajv.addKeyword({
    keyword: 'notBlank',
    type: 'string',
    schemaType: 'boolean',
    errors: false,
    validate: (enabled: boolean, data: string) => !enabled || data.trim().length > 0,
  });
  const checks: [string, 'string' | 'number', (data: unknown) => boolean][] = [
    [NO_NUL, 'string', (data) => !hasNul(data as string)],
    [WELL_FORMED, 'string', (data) => !hasLoneSurrogate(data as string)],
    [SINGLE_LINE, 'string', (data) => !hasControl(data as string, 'one')],
    [MULTI_LINE, 'string', (data) => !hasControl(data as string, 'several')],
    [FINITE, 'number', (data) => Number.isFinite(data)],
  ];
  for (const [keyword, type, valid] of checks) {
    ajv.addKeyword({
      keyword,
      type,
      schemaType: 'boolean',
      errors: false,
      validate: (_enabled: boolean, data: unknown) => valid(data),
    });
  }
  return ajv.compile(guarded(CreateFormBody) as object);
}

/** The schema's problems with a form body, as a 400 would list them (path and message); [] when valid. */
export function schemaProblems(body: unknown): ErrorDetail[] {
  validate ??= compile();
  if (validate(body)) return [];
  return violations({ validation: validate.errors ?? [], validationContext: 'body' });
}
