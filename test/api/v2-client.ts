/**
 * A v2 client over the API harness (Authorization: Bearer with the org's token) that checks every
 * answer against Trunk's v2 OpenAPI extract with Ajv: the status must be one the operation declares,
 * and a JSON body must match the schema declared for it (errors: ErrorResponse).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { ApiHarness } from './api-harness.js';

export const SPEC = JSON.parse(
  readFileSync(new URL('../fixtures/trunk/trunk-openapi-v2-merge-queue.json', import.meta.url), 'utf8'),
) as { paths: Record<string, Record<string, SpecOperation>> };

interface SpecOperation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its default export is the plugin itself.
(formatsPlugin as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(SPEC as object, 'trunk');

/** The spec's path template of a concrete path: `/v2/merge-queues/abc/pause` → `/v2/merge-queues/{id}/pause`. */
export function templateOf(method: string, path: string): string {
  const bare = path.split('?')[0]!;
  const candidates = Object.keys(SPEC.paths).filter((t) => SPEC.paths[t]![method.toLowerCase()]);
  const exact = candidates.find((t) => t === bare);
  if (exact) return exact;
  const found = candidates.find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
  if (!found) throw new Error(`No operation ${method} ${bare} in Trunk's v2 document`);
  return found;
}

/** Every operation of the extract as `METHOD template`. */
export const OPERATIONS = Object.entries(SPEC.paths).flatMap(([t, ops]) =>
  Object.keys(ops)
    .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
    .map((m) => `${m.toUpperCase()} ${t}`),
);

/** Asserts that the answer is declared by the operation and its body matches the declared schema. */
export function expectConformant(method: string, path: string, res: LightMyRequestResponse): void {
  const template = templateOf(method, path);
  const op = SPEC.paths[template]![method.toLowerCase()]!;
  const declared = op.responses[String(res.statusCode)];
  expect(declared, `${method} ${path}: status ${res.statusCode} is not declared (${res.body})`).toBeDefined();
  expect(res.headers['x-request-id'], `${method} ${path}: X-Request-Id`).toBeTruthy();
  const json = declared!.content?.['application/json'];
  if (!json) return;
  const pointer = JSON.stringify(json.schema).match(/#\/components\/schemas\/(\w+)/)?.[1];
  const validate = pointer
    ? ajv.getSchema(`trunk#/components/schemas/${pointer}`)!
    : ajv.compile({
        $ref: `trunk#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.statusCode}/content/application~1json/schema`,
      });
  const body = JSON.parse(res.body);
  const ok = validate(body);
  expect(
    ok,
    `${method} ${path} → ${res.statusCode}: ${ajv.errorsText(validate.errors)}\n${res.body.slice(0, 2000)}`,
  ).toBe(true);
}

export interface V2Client {
  /** Sends a request and checks its answer against the extract; answers the response. */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

export function v2Client(h: ApiHarness, seen?: Set<string>): V2Client {
  return {
    async call(method, path, body, headers = {}) {
      const res = await h.app.inject({
        method,
        url: path,
        headers: {
          authorization: `Bearer ${h.token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      expectConformant(method, path, res);
      seen?.add(`${method} ${templateOf(method, path)} ${res.statusCode}`);
      return res;
    },
  };
}
