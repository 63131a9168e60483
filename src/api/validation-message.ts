/**
 * Turns Ajv's errors for one request part into one sentence that names the field, e.g.
 * "body/pr/number must be a positive integer or a decimal string". A field the schema does not list
 * (schemas/common.ts RequestObject) is named with the fields that are:
 * "body/concurency is not a field of body; its fields are repo, targetBranch, state, …".
 *
 * Ajv runs with `allErrors: false`, so the last error is the keyword that failed; the errors before
 * it belong to the rejected branches of an `anyOf`. A failed `anyOf`, pattern or format is reported
 * with the `x-expected` description of its schema (see ajv-keywords.ts) instead of Ajv's wording.
 * Ajv runs with `verbose: true`, so each error carries its schema.
 */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
}

/** Keywords whose Ajv wording shows schema internals (a regular expression, "must match a schema in anyOf"). */
const OPAQUE = new Set(['anyOf', 'pattern', 'format']);

export function validationMessage(errors: readonly SchemaError[], part: string): string {
  const error = errors[errors.length - 1];
  if (!error) return `${part} is invalid`;
  const at = part + error.instancePath;
  const expected = error.parentSchema?.['x-expected'];
  if (OPAQUE.has(error.keyword) && typeof expected === 'string') return `${at} must be ${expected}`;
  switch (error.keyword) {
    case 'required':
      return `${at}/${String(error.params.missingProperty)} is required`;
    case 'x-enum-any-case':
      return `${at} must be one of ${(error.schema as string[]).join(', ')} (any letter case)`;
    case 'additionalProperties': {
      const fields = Object.keys((error.parentSchema?.properties ?? {}) as Record<string, unknown>);
      const known = fields.length > 0 ? `its fields are ${fields.join(', ')}` : 'it takes no fields';
      return `${at}/${String(error.params.additionalProperty)} is not a field of ${at}; ${known}`;
    }
    case 'minLength':
      return error.params.limit === 1 ? `${at} must not be empty` : `${at} ${error.message}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}
