/**
 * GitHub's own descriptions as the referee of the fake of GitHub (test/doubles/api-description.ts):
 * its REST API (@octokit/openapi, api.github.com; OpenAPI 3.0) and its webhook payloads
 * (@octokit/openapi-webhooks), read from the committed subset that holds what the fake serves
 * (test/fixtures/github/, written by scripts/github-description-subset.ts) rather than from the
 * 13 MB description itself. What GitHub enforces beyond its description: `per_page` ≤ 100 ("The
 * number of results per page (max 100)"), and the answers it documents for every endpoint rather
 * than per operation.
 */
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { ApiDescription, message } from '../../doubles/api-description.js';

export type { Match, Operation, Violation } from '../../doubles/api-description.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/github/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

const LEFT_OUT =
  ': add it to test/forge/github/fake-operations.ts and run `npx tsx scripts/github-description-subset.ts`';

/**
 * Answers GitHub documents for every endpoint rather than per operation: 401 (bad credentials), 403 and
 * 429 of the primary and secondary rate limits (with their headers), 404 for what does not exist or is
 * not visible, and server errors.
 */
const ANY_ENDPOINT = new Set([401, 403, 404, 429, 500, 502, 503]);

let rest: ApiDescription | null = null;
let webhooks: ApiDescription | null = null;

/** GitHub's REST API description, read once per process. */
export function gitHubRest(): ApiDescription {
  rest ??= new ApiDescription(fixture('openapi-subset.json'), {
    name: 'GitHub',
    anyOperation: ANY_ENDPOINT,
    parameterSchema: (p) => (p.name === 'per_page' ? { ...p.schema, maximum: 100 } : p.schema),
    leftOutHint: LEFT_OUT,
  });
  return rest;
}

/** GitHub's webhook payload schemas, read once per process. */
export function gitHubWebhooks(): ApiDescription {
  webhooks ??= new ApiDescription(fixture('webhooks-subset.json'), {
    name: 'GitHub',
    anyOperation: new Set(),
    leftOutHint: LEFT_OUT,
  });
  return webhooks;
}

export const findOperation = (method: string, rawPath: string) => gitHubRest().find(method, rawPath);

export const checkRequest = (method: string, rawPath: string, query: URLSearchParams, body: unknown) =>
  gitHubRest().checkRequest(method, rawPath, query, body);

export const checkResponse = (...args: Parameters<ApiDescription['checkResponse']>) =>
  gitHubRest().checkResponse(...args);

/** GitHub's documented example answer of `op` for `status`, or undefined. */
export const exampleAnswer = (...args: Parameters<ApiDescription['example']>) => gitHubRest().example(...args);

/**
 * The validator of a webhook payload by event and action (`pull_request` `opened` →
 * `pull-request-opened`; `push`, `status`: the event alone), or the reason there is none.
 */
export function webhookValidator(event: string, payload: unknown): { key: string; v: ValidateFunction } | string {
  const action = (payload as { action?: unknown } | null)?.action;
  const kebab = (x: string) => x.replaceAll('_', '-');
  const keys = [typeof action === 'string' ? `${kebab(event)}-${kebab(action)}` : null, kebab(event)];
  for (const key of keys) {
    if (key === null) continue;
    const v = gitHubWebhooks().webhook(key);
    if (v === 'left out') return `the ${key} webhook is left out of the description read${LEFT_OUT}`;
    if (v !== 'absent') return { key, v };
  }
  return `GitHub sends no ${event}${typeof action === 'string' ? ` ${action}` : ''} delivery`;
}

/** What in a webhook delivery's payload GitHub would not send, in words (empty: GitHub sends it so). */
export function checkWebhook(event: string, payload: unknown): string[] {
  const found = webhookValidator(event, payload);
  if (typeof found === 'string') return [found];
  return found.v(payload) ? [] : [`${found.key} payload: ${message(found.v)}`];
}
