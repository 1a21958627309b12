import type { ValidateFunction } from 'ajv';
import type { ErrorDetail } from '../../../errors/catalogue.js';
import { violations } from '../../../http/errors/violations.js';
import { build, guarded } from '../../../http/schemas/validation.js';
import { CreateFormBody } from '../forms.schemas.js';

/**
 * The body of POST /orgs/:orgId/forms, checked as that route checks it (the same schema, guarded the
 * same way, the same keywords), for a form read from a spreadsheet rather than sent as JSON.
 */
let validate: ValidateFunction | undefined;

function compile(): ValidateFunction {
  return build(false).compile(guarded(CreateFormBody) as object);
}

/** The schema's problems with a form body, as a 400 would list them (path and message); [] when valid. */
export function schemaProblems(body: unknown): ErrorDetail[] {
  validate ??= compile();
  if (validate(body)) return [];
  return violations({ validation: validate.errors ?? [], validationContext: 'body' });
}
