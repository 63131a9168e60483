/**
 * GitLab's own OpenAPI 3.0 description (an extract of `doc/api/openapi/openapi_v3.yaml` at GitLab
 * 19.5, test/fixtures/gitlab/openapi-extract.json: its `info.x-extract` names the source, the commit
 * and what it lacks) as the referee of the fake GitLab (fake-gitlab-api.ts,
 * test/doubles/api-description.ts), loaded once per process.
 *
 * The generated document departs from what GitLab sends in ways its extract lists
 * (`known_source_quirks`); each departure is corrected here, named where it is made, and nothing else:
 * - nothing in a response is `nullable`, though GitLab sends `null` for what is absent
 *   (`merge_commit_sha`, `merged_at`, `head_pipeline` …): every response property may be null;
 * - collections typed as one `$ref` (`assignees`, `reviewers`, `custom_attributes`) are arrays;
 * - `access_level` is typed string, sent as an integer;
 * - the MR notes list and the labels list declare one object, and answer an array;
 * - `POST /statuses/:sha` declares 200, the REST docs answer 201; pipeline retry and cancel declare
 *   201, the pipelines docs say cancel answers 200: both are allowed;
 * - five request bodies were not transcribed (placeholders): they are written from the REST docs
 *   (notes: `body`; labels: `name`, `color`, `description`, `priority`; branches: `branch`, `ref`;
 *   job retry: `inputs`).
 * Path parameters typed `oneOf` string/integer are read as `anyOf` (a numeric id is both).
 */
import { readFileSync } from 'node:fs';
import { ApiDescription, type Json } from '../../doubles/api-description.js';

/** Statuses any operation may answer with an error body, documented or not (auth, limits, locks, server errors). */
const ANY_OPERATION = new Set([401, 403, 404, 409, 429, 500, 503]);

/** GitLab's error body: `{"message": "404 Project Not Found"}`, or a map of field errors. */
const ERROR_BODY: Json = {
  type: 'object',
  properties: { message: { anyOf: [{ type: 'string' }, { type: 'object' }] }, error: { type: 'string' } },
};

const BODIES: Record<string, Json> = {
  // MR note create and update (notes.md): body, required on create.
  RequestBody_bc09ed866646: {
    type: 'object',
    properties: { body: { type: 'string' }, internal: { type: 'boolean' }, created_at: { type: 'string' } },
    required: ['body'],
  },
  RequestBody_c1925678aad5: { type: 'object', properties: { body: { type: 'string' } } },
  // Label create (labels.md): name and color required.
  RequestBody_4b00ccc66329: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      color: { type: 'string' },
      description: { type: 'string' },
      priority: { type: 'integer' },
    },
    required: ['name', 'color'],
  },
  // Branch create (branches.md): branch and ref required.
  RequestBody_25f1867b4335: {
    type: 'object',
    properties: { branch: { type: 'string' }, ref: { type: 'string' } },
    required: ['branch', 'ref'],
  },
  // Job retry: no required parameter.
  RequestBody_0f9000e47c5f: { type: 'object', properties: { inputs: { type: 'object' } } },
};

let loaded: ApiDescription | null = null;

export function gitlabDescription(): ApiDescription {
  if (loaded) return loaded;
  const doc = JSON.parse(
    readFileSync(new URL('../../fixtures/gitlab/openapi-extract.json', import.meta.url), 'utf8'),
  ) as Json;
  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  Object.assign(schemas, BODIES);
  for (const [name, schema] of Object.entries(schemas)) if (!name.startsWith('RequestBody_')) loosen(schema);
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const arrayAnswer = (path: string) => {
    const content = ((paths[path]!.get!.responses as Json)['200'] as Json).content as Json;
    const json = content['application/json'] as Json;
    json.schema = { type: 'array', items: json.schema };
  };
  arrayAnswer('/api/v4/projects/{id}/merge_requests/{noteable_id}/notes');
  arrayAnswer('/api/v4/projects/{id}/labels');
  const alsoAnswers = (path: string, method: string, from: string, to: string) => {
    const responses = paths[path]![method]!.responses as Json;
    responses[to] = responses[from];
  };
  alsoAnswers('/api/v4/projects/{id}/statuses/{sha}', 'post', '200', '201');
  alsoAnswers('/api/v4/projects/{id}/pipelines/{pipeline_id}/retry', 'post', '201', '200');
  alsoAnswers('/api/v4/projects/{id}/pipelines/{pipeline_id}/cancel', 'post', '201', '200');
  loaded = new ApiDescription(doc, {
    name: 'GitLab',
    anyOperation: ANY_OPERATION,
    errorBody: ERROR_BODY,
    parameterSchema: (p) => (Array.isArray(p.schema.oneOf) ? { anyOf: p.schema.oneOf } : p.schema),
  });
  return loaded;
}

const COLLECTIONS = new Set(['assignees', 'reviewers', 'custom_attributes']);

/** A response schema as GitLab answers it: every property may be null, collections are arrays. */
function loosen(schema: Json): void {
  const props = schema.properties as Record<string, Json> | undefined;
  if (!props) return;
  for (const [name, p] of Object.entries(props)) {
    if (p.type === 'object') loosen(p);
    const value: Json =
      name === 'access_level'
        ? { type: ['integer', 'string'] }
        : COLLECTIONS.has(name) && typeof p.$ref === 'string'
          ? { anyOf: [p, { type: 'array', items: p }] }
          : p;
    props[name] = { anyOf: [{ type: 'null' }, value] };
  }
}
