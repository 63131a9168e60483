/**
 * Turns Ajv's errors for one request part into one sentence that names the field, e.g.
 * "body/pr/number must be a positive integer or a decimal string". A field the schema does not list
 * (v1/schemas/common.ts RequestObject) is named with the fields that are:
 * "body/concurency is not a field of body; its fields are repo, targetBranch, state, …".
 *
 * Ajv runs with `allErrors: false`, so the last error is the keyword that failed; the errors before
 * it belong to the rejected branches of an `anyOf`. A failed `anyOf`, pattern or format is reported
 * with the `x-expected` description of its schema (see ajv-keywords.ts) instead of Ajv's wording, and
 * so is an integer out of range or of the wrong type whose schema has one.
 * Ajv runs with `verbose: true`, so each error carries its schema.
 */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
  /** The value that failed (Ajv's `verbose`). */
  data?: unknown;
}

/** "its fields are a, b, c": the fields of the object schema `schema`. */
function fieldsOf(schema: Record<string, unknown> | undefined): string {
  const fields = Object.keys((schema?.properties ?? {}) as Record<string, unknown>);
  return fields.length > 0 ? `its fields are ${fields.join(', ')}` : 'it takes no fields';
}

/** A key of the object that failed `required` that its schema does not have: often the misspelt one. */
function strayKey(error: SchemaError): string | undefined {
  const properties = error.parentSchema?.properties as Record<string, unknown> | undefined;
  if (
    !properties ||
    error.parentSchema?.additionalProperties !== false ||
    typeof error.data !== 'object' ||
    error.data === null
  )
    return undefined;
  return Object.keys(error.data).find((key) => !Object.hasOwn(properties, key));
}

/** Keywords whose Ajv wording shows schema internals (a regular expression, "must match a schema in anyOf"). */
const OPAQUE = new Set(['anyOf', 'pattern', 'format']);
const RANGE = new Set(['minimum', 'maximum', 'type']);

export function validationMessage(errors: readonly SchemaError[], part: string): string {
  const error = errors[errors.length - 1];
  if (!error) return `${part} is invalid`;
  const at = part + error.instancePath;
  const expected = error.parentSchema?.['x-expected'];
  if (OPAQUE.has(error.keyword) && typeof expected === 'string') return `${at} must be ${expected}`;
  // A number with a range says the whole range ("an integer from 0 to 5"), not only the bound it crossed.
  if (RANGE.has(error.keyword) && error.parentSchema?.type === 'integer' && typeof expected === 'string')
    return `${at} must be ${expected}, got ${JSON.stringify(error.data)}`;
  switch (error.keyword) {
    case 'required': {
      const stray = strayKey(error);
      const missing = `${at}/${String(error.params.missingProperty)} is required`;
      return stray === undefined
        ? missing
        : `${missing}, and ${at}/${stray} is not a field of ${at}; ${fieldsOf(error.parentSchema)}`;
    }
    case 'x-enum-any-case':
      return `${at} must be one of ${(error.schema as string[]).join(', ')} (any letter case)`;
    case 'additionalProperties':
      return `${at}/${String(error.params.additionalProperty)} is not a field of ${at}; ${fieldsOf(error.parentSchema)}`;
    case 'minLength':
      return error.params.limit === 1 ? `${at} must not be empty` : `${at} ${error.message}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}
