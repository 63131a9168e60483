/**
 * A field a request body does not have — a typo such as `concurency`, at the top or inside `repo` or
 * `pr` — is a 400 that names it and lists the fields that are there, on every endpoint; and every
 * field of Trunk's OpenAPI document and of the requests Trunk's clients send stays accepted.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, REPO, SLUG, type ApiHarness } from './api-harness.js';
import type { Json } from '../helpers/json.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  anyOf?: Schema[];
  $ref?: string;
};
type Doc = {
  paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: Schema } } } }>>;
};

const trunk = JSON.parse(
  readFileSync(new URL('../fixtures/trunk/trunk-openapi-v1.json', import.meta.url), 'utf8'),
) as Doc & Record<string, unknown>;

let h: ApiHarness;
let greenline: Doc;
beforeAll(async () => {
  h = await createApiHarness();
  greenline = JSON.parse((await h.get('/v1/openapi.json')).body) as Doc;
});
afterAll(() => h.close());

const queue = { repo: REPO, targetBranch: 'main' };
const pr = { ...queue, pr: { number: 1 } };
/** A body each endpoint's schema accepts; the test fails when an endpoint is missing here. */
const VALID: Record<string, Record<string, unknown>> = {
  '/v1/submitPullRequest': pr,
  '/v1/queuePullRequest': pr,
  '/v1/cancelPullRequest': pr,
  '/v1/restartTestsOnPullRequest': pr,
  '/v1/getSubmittedPullRequest': pr,
  '/v1/getSubmittedPullRequests': { ...queue, prs: [{ number: 1 }] },
  '/v1/listPullRequests': queue,
  '/v1/setImpactedTargets': { ...queue, pr: { number: 1, sha: 'a'.repeat(40) }, impactedTargets: [] },
  '/v1/getMergeQueueTestingDetails': { ...queue, testRunId: 'run' },
  '/v1/listMergeQueueTestingResults': queue,
  '/v1/createQueue': queue,
  '/v1/getQueue': queue,
  '/v1/updateQueue': queue,
  '/v1/deleteQueue': queue,
  '/v1/reportStatus': { repo: REPO, testRunId: 'run', context: 'ci', state: 'success' },
  '/v1/getTestRunChanges': { repo: REPO, testRunId: 'run' },
  '/v1/getTestRunLog': { ...queue, testRunId: 'run' },
  '/v1/tryPullRequest': { ...queue, pr: { number: 1 } },
  '/v1/getPullRequestTry': { ...queue, pr: { number: 1 } },
  '/v1/createWebhook': { url: 'https://hooks.example.com/mq' },
  '/v1/listWebhooks': {},
  '/v1/deleteWebhook': { id: 'hook' },
  '/v1/rotateWebhookSecret': { id: 'hook' },
  '/v1/enableWebhook': { id: 'hook' },
  '/v1/listWebhookDeliveries': { id: 'hook' },
  '/v1/redeliverWebhook': { deliveryId: 'msg' },
  '/v1/createNotificationChannel': { kind: 'chat', url: 'https://chat.example.com/hook' },
  '/v1/listNotificationChannels': {},
  '/v1/deleteNotificationChannel': { id: 'channel' },
  '/v1/enableNotificationChannel': { id: 'channel' },
  '/v1/testNotificationChannel': { id: 'channel' },
  '/v1/listQueues': {},
  '/v1/getCurrentToken': {},
  '/v1/getQueueActivity': queue,
  '/v1/getQueueHistory': queue,
  '/v1/listConcludedPullRequests': queue,
  '/v1/listAuditEvents': {},
  '/v1/notifyRefsMoved': {
    repo: REPO,
    refs: [{ ref: 'refs/heads/main', oldSha: 'a'.repeat(40), newSha: 'b'.repeat(40) }],
  },
};

const resolve = (doc: Record<string, unknown>, schema: Schema): Schema =>
  schema.$ref
    ? resolve(
        doc,
        schema.$ref
          .slice(2)
          .split('/')
          .reduce<Json>((node, key) => node[key], doc),
      )
    : schema;

/** Every field path of a request schema, nested objects and oneOf/anyOf alternatives included. */
function fieldPaths(doc: Record<string, unknown>, schema: Schema, at = ''): string[] {
  const s = resolve(doc, schema);
  const own = Object.entries(s.properties ?? {}).flatMap(([key, sub]) => [
    `${at}${key}`,
    ...fieldPaths(doc, sub, `${at}${key}/`),
  ]);
  const alternatives = [...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap((alt) => fieldPaths(doc, alt, at));
  return [...new Set([...own, ...alternatives])];
}

const bodySchema = (doc: Doc, path: string): Schema | undefined =>
  doc.paths[path]?.post?.requestBody?.content['application/json'].schema;

/** The nested objects of `body` that have a schema with properties, as paths ('' = the body itself). */
function objectPaths(schema: Schema, body: Record<string, unknown>, at = ''): { path: string; fields: string[] }[] {
  const nested = Object.entries(schema.properties ?? {})
    .filter(([key, sub]) => sub.properties && typeof body[key] === 'object' && body[key] !== null)
    .flatMap(([key, sub]) => objectPaths(sub, body[key] as Record<string, unknown>, `${at}${key}/`));
  return [{ path: at, fields: Object.keys(schema.properties ?? {}) }, ...nested];
}

/** `body` with `key: value` added in the object at `path` ('repo/' = inside repo). */
function withField(body: Record<string, unknown>, path: string, key: string, value: unknown): Record<string, unknown> {
  if (path === '') return { ...body, [key]: value };
  const [head, ...rest] = path.split('/');
  return { ...body, [head!]: withField(body[head!] as Record<string, unknown>, rest.join('/'), key, value) };
}

describe('unknown fields', () => {
  it('covers every endpoint that takes a JSON body', () => {
    const withBodies = Object.keys(greenline.paths).filter((path) => bodySchema(greenline, path));
    expect(withBodies.sort()).toEqual(Object.keys(VALID).sort());
  });

  it('answers 200-or-a-domain-error to each valid body, so that a 400 below is the unknown field', async () => {
    for (const [path, body] of Object.entries(VALID)) {
      const res = await h.post(path, body);
      expect(res.statusCode === 400 ? `${path}: ${res.body}` : 'ok').toBe('ok');
    }
  });

  it('refuses a typo at every level of every body, naming it and the fields that are there', async () => {
    for (const [path, body] of Object.entries(VALID)) {
      for (const { path: at, fields } of objectPaths(bodySchema(greenline, path)!, body)) {
        const where = `body${at === '' ? '' : `/${at.slice(0, -1)}`}`;
        const res = await h.post(path, withField(body, at, 'concurency', 2));
        const known = fields.length > 0 ? `its fields are ${fields.join(', ')}` : 'it takes no fields';
        expect({ path, ...errorOf(res) }).toEqual({
          path,
          status: 400,
          code: 'VALIDATION_FAILED',
          message: `Invalid request: ${where}/concurency is not a field of ${where}; ${known}`,
        });
      }
    }
  });

  it('says so on updateQueue {"concurency": 2} and leaves the queue unchanged', async () => {
    h.t.forge.pushToBranch(SLUG, 'typo');
    await h.post('/v1/createQueue', { ...queue, targetBranch: 'typo' });
    const res = await h.post('/v1/updateQueue', { ...queue, targetBranch: 'typo', concurency: 2 });
    expect(errorOf(res).message).toMatch(
      /^Invalid request: body\/concurency is not a field of body; its fields are repo, targetBranch, state, mode, concurrency, /,
    );
    expect(JSON.parse((await h.post('/v1/getQueue', { ...queue, targetBranch: 'typo' })).body).concurrency).toBe(1);
  });

  it('names a misspelt required field beside the missing one', async () => {
    const res = await h.post('/v1/getQueue', {
      repo: { host: 'github.com', owner: 'acme', nmae: 'web' },
      targetBranch: 'main',
    });
    expect(errorOf(res).message).toBe(
      'Invalid request: body/repo/name is required, and body/repo/nmae is not a field of body/repo; ' +
        'its fields are host, owner, name',
    );
  });

  it('refuses an unknown query parameter of the GET endpoints the same way', async () => {
    expect(errorOf(await h.get('/v1/getMergeQueueMetrics?rep=acme/web&repoHost=github.com'))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: querystring/rep is not a field of querystring; its fields are repo, repoHost',
    });
    expect(
      errorOf(await h.get('/v1/streamQueueEvents?repo=acme/web&repoHost=github.com&targetBranch=main&branch=main')),
    ).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message:
        'Invalid request: querystring/branch is not a field of querystring; its fields are repo, repoHost, targetBranch',
    });
  });

  it('keeps a setting of updateQueue sent to createQueue a pointed error', async () => {
    expect(errorOf(await h.post('/v1/createQueue', { ...queue, targetBranch: 'c', batch: true })).message).toBe(
      'Invalid request: body/batch cannot be set by createQueue; create the queue, then set it with updateQueue',
    );
  });
});

describe("Trunk's fields stay accepted", () => {
  const trunkPaths = Object.keys(trunk.paths).filter((path) => bodySchema(trunk, path));

  it("finds the request bodies of Trunk's v1 endpoints in its OpenAPI document", () => {
    expect(trunkPaths.length).toBeGreaterThanOrEqual(11);
  });

  it.each(trunkPaths)("every field of %s in Trunk's OpenAPI document is a field of greenline's", (path) => {
    const theirs = fieldPaths(trunk, bodySchema(trunk, path)!);
    const ours = fieldPaths(greenline as unknown as Record<string, unknown>, bodySchema(greenline, `/v1${path}`)!);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.filter((field) => !ours.includes(field))).toEqual([]);
  });

  it("takes the fields Trunk's clients send beyond its OpenAPI document (contract §2.4, §2.5, §2.10, §3 #2)", () => {
    const ours = (path: string) =>
      fieldPaths(greenline as unknown as Record<string, unknown>, bodySchema(greenline, path)!);
    // Terraform provider's extra settings, and the legacy names older clients send.
    expect(ours('/v1/updateQueue')).toEqual(
      expect.arrayContaining([
        'extensionEnabled',
        'enqueueingLabel',
        'labelCommandsEnabled',
        'stateLabelsEnabled',
        'notReadyTimeoutHours',
        'testBranchConstructionMode',
        'testingTimeoutMins',
        'isBatching',
        'batchingMaxWaitTimeMins',
        'batchingMode',
      ]),
    );
    // The legacy Merge API listed priority on getSubmittedPullRequest; the newer document pr.branch.
    expect(ours('/v1/getSubmittedPullRequest')).toEqual(
      expect.arrayContaining(['priority', 'pr/branch', 'includeTimeline']),
    );
    // Trunk's migration guide names an until bound of listPullRequests beside since (contract §2.5).
    expect(ours('/v1/listPullRequests')).toEqual(expect.arrayContaining(['since', 'until']));
  });
});
