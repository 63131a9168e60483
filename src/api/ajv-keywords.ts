import type { Ajv } from 'ajv';

/**
 * JSON-Schema keywords of the API's schemas (OpenAPI allows `x-` extensions).
 *
 * - `x-enum-any-case: [...]` — a string equal to one of the values, ignoring letter case. Trunk's
 *   clients send enums in either case (contract §3 #1: lowercase today, UPPERCASE in older clients and
 *   examples), so every enum of the API is matched this way and normalised by the route.
 * - `x-expected: "..."` — annotation only: how an error message describes the accepted forms of a
 *   value whose schema is an `anyOf`, a pattern or a format (see validation-message.ts).
 */
export function addApiKeywords(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'x-enum-any-case',
    type: 'string',
    schemaType: 'array',
    compile(values: string[]) {
      const accepted = new Set(values.map((v) => v.toLowerCase()));
      return (data: string) => accepted.has(data.toLowerCase());
    },
  });
  ajv.addKeyword({ keyword: 'x-expected', schemaType: 'string' });
  return ajv;
}
