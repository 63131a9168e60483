/**
 * Scoped tokens over HTTP, v1 and v2 alike: every authenticated route declares its scopes; each
 * endpoint answers a token of each scope as the table of docs/security.md says (403
 * INSUFFICIENT_PERMISSIONS naming the scope otherwise); a priority or noBatch needs its own scope;
 * tokens limited to repositories see and touch only those; expired tokens are refused saying so;
 * tokens made before scopes existed keep every scope.
 */
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../src/api/route-deps.js';
import { V1_ROUTES } from '../../src/api/v1/routes.js';
import { V2_ROUTES } from '../../src/api/v2/routes.js';
import { createApiToken, hashToken, LAST_USED_PRECISION_MS, type TokenLimits } from '../../src/app/admin/tokens.js';
import type { MergeQueueService } from '../../src/app/service-port.js';
import { SCOPES, type Scope } from '../../src/app/scopes.js';
import { insertApiToken, listApiTokens } from '../../src/store/api-tokens.js';
import { findOrgByName } from '../../src/store/orgs.js';
import { createApiHarness, errorOf, json, SLUG, type ApiHarness } from './api-harness.js';

/** Every route of the v1 and v2 APIs as registered, with the scopes it declares. */
async function declaredRoutes(): Promise<{ route: string; scopes: readonly Scope[] | undefined }[]> {
  const found: { route: string; scopes: readonly Scope[] | undefined }[] = [];
  const app = Fastify();
  // Only the declarations are looked at: no schema is compiled, no handler runs.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat())
      if (method !== 'HEAD') found.push({ route: `${method} ${r.url}`, scopes: r.config?.scopes });
  });
  const service = {} as MergeQueueService;
  await app.register(
    async (v1) => {
      for (const route of V1_ROUTES) route(v1 as unknown as ApiApp, { service, enumCase: () => 'upper' });
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (v2) => {
      for (const route of V2_ROUTES) route(v2 as unknown as ApiApp, { service });
    },
    { prefix: '/v2' },
  );
  await app.ready();
  await app.close();
  return found;
}

const R: Scope[] = ['read'];
const PR: Scope[] = ['pull_requests:write'];
const QW: Scope[] = ['queues:write'];
const AD: Scope[] = ['admin'];
const TARGETS: Scope[] = ['pull_requests:write', 'impacted_targets:write'];

/** The scopes that allow each endpoint (any one of them): the table of docs/security.md. */
const EXPECTED: Record<string, Scope[]> = {
  'POST /v1/submitPullRequest': PR,
  'POST /v1/queuePullRequest': PR,
  'POST /v1/cancelPullRequest': PR,
  'POST /v1/restartTestsOnPullRequest': PR,
  'POST /v1/getSubmittedPullRequest': R,
  'POST /v1/getSubmittedPullRequests': R,
  'POST /v1/listPullRequests': R,
  'POST /v1/setImpactedTargets': TARGETS,
  'POST /v1/getMergeQueueTestingDetails': R,
  'POST /v1/listMergeQueueTestingResults': R,
  'POST /v1/createQueue': QW,
  'POST /v1/getQueue': R,
  'POST /v1/updateQueue': QW,
  'POST /v1/deleteQueue': QW,
  'GET /v1/getMergeQueueMetrics': R,
  'POST /v1/reportStatus': ['test_runs:report'],
  'POST /v1/getTestRunLog': R,
  'POST /v1/createWebhook': AD,
  'POST /v1/listWebhooks': AD,
  'POST /v1/deleteWebhook': AD,
  'POST /v1/rotateWebhookSecret': AD,
  'POST /v1/enableWebhook': AD,
  'POST /v1/listWebhookDeliveries': AD,
  'POST /v1/redeliverWebhook': AD,
  'POST /v1/createNotificationChannel': AD,
  'POST /v1/listNotificationChannels': AD,
  'POST /v1/deleteNotificationChannel': AD,
  'POST /v1/enableNotificationChannel': AD,
  'POST /v1/testNotificationChannel': AD,
  'POST /v1/listQueues': R,
  'POST /v1/getQueueActivity': R,
  'POST /v1/getQueueHistory': R,
  'POST /v1/listConcludedPullRequests': R,
  'GET /v1/streamQueueEvents': R,
  'POST /v1/getCurrentToken': R,
  'POST /v1/listAuditEvents': ['admin', 'audit:read'],
  'POST /v1/notifyRefsMoved': ['refs:notify'],
  'GET /v2/merge-queues': R,
  'POST /v2/merge-queues': QW,
  'GET /v2/merge-queues/metrics': R,
  'GET /v2/merge-queues/:id/metrics': R,
  'GET /v2/merge-queues/:id': R,
  'DELETE /v2/merge-queues/:id': QW,
  'GET /v2/merge-queues/:id/order': R,
  'GET /v2/merge-queues/:id/graph': R,
  'GET /v2/merge-queues/:id/testing-results': R,
  'POST /v2/merge-queues/:id/pull-requests': PR,
  'GET /v2/merge-queues/:id/pull-requests': R,
  'POST /v2/merge-queues/:id/switch-modes': QW,
  'POST /v2/merge-queues/:id/pause': QW,
  'POST /v2/merge-queues/:id/resume': QW,
  'POST /v2/merge-queues/:id/drain': QW,
  'PATCH /v2/merge-queues/:id/config': QW,
  'PUT /v2/impacted-targets': TARGETS,
  'GET /v2/merge-queue-verification-runs/:id': R,
  'GET /v2/merge-queues/:id/verification-runs': R,
  'GET /v2/pull-requests/:id/verification-runs': R,
  'GET /v2/pull-requests/:id/queue-entry-history': R,
  'GET /v2/queue-entry-history': R,
  'GET /v2/pull-requests': R,
  'GET /v2/pull-requests/:id': R,
  'POST /v2/pull-requests/:id/reprioritize': ['pull_requests:priority'],
  'PATCH /v2/pull-requests/:id/queue-entry': PR,
  'POST /v2/pull-requests/:id/dequeue': PR,
  'POST /v2/pull-requests/:id/restart-tests': PR,
  'GET /v2/repositories': R,
  'GET /v2/repositories/:id': R,
};

describe('every authenticated route', () => {
  it('declares the scopes that allow it, all of them known', async () => {
    const routes = await declaredRoutes();
    expect(routes.length).toBeGreaterThan(60);
    for (const { route, scopes } of routes) {
      expect(scopes, `${route} declares no scope`).toBeDefined();
      expect(scopes!.length, `${route} declares no scope`).toBeGreaterThan(0);
      for (const s of scopes!) expect(SCOPES, `${route}: unknown scope ${s}`).toContain(s);
    }
  });
});

let h: ApiHarness;
let orgId: string;
/** A token of the org `acme` with these limits. */
const tokenWith = async (limits: TokenLimits, name = 'scoped') =>
  (await createApiToken(h.t.db, orgId, name, h.t.clock.now(), limits)).token;

beforeEach(async () => {
  h = await createApiHarness({ v2Limits: { perSecond: 100_000, metricsPerSecond: 100_000 } });
  orgId = (await findOrgByName(h.t.db, 'acme'))!.id;
});
afterEach(() => h.close());

/** A request to `route` (`METHOD /path/:id`) with `token`, v1 or v2, with an empty JSON body. */
function call(route: string, token: string) {
  const [method, path] = route.split(' ') as [string, string];
  const url = path.replace(':id', '00000000-0000-4000-8000-000000000000');
  const v2 = url.startsWith('/v2/');
  const auth = v2 ? { authorization: `Bearer ${token}` } : { 'x-api-token': token };
  return h.app.inject({
    method: method as 'GET',
    url,
    headers: { ...auth, ...(method === 'GET' || method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
    ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{}' }),
  });
}

describe('a token with one scope', () => {
  it('is answered by each endpoint as the table says, v1 and v2 (403 INSUFFICIENT_PERMISSIONS naming the scope otherwise)', async () => {
    const declared = new Set((await declaredRoutes()).map((r) => r.route));
    for (const route of Object.keys(EXPECTED)) expect(declared, `${route} is not served`).toContain(route);
    for (const scope of SCOPES) {
      const token = await tokenWith({ scopes: [scope] }, scope);
      for (const [route, allowed] of Object.entries(EXPECTED)) {
        const res = await call(route, token);
        // `read` comes with every scope.
        if (allowed.includes(scope) || allowed.includes('read')) {
          expect(res.statusCode, `${scope} → ${route}: ${res.body}`).not.toBe(403);
          expect(res.statusCode, `${scope} → ${route}: ${res.body}`).not.toBe(401);
        } else {
          expect(res.statusCode, `${scope} → ${route}: ${res.body}`).toBe(403);
          const error = json(res).error as { code: string; message: string };
          expect(error.code).toBe('INSUFFICIENT_PERMISSIONS');
          expect(error.message).toContain(allowed[0]);
          expect(error.message).toContain('greenline token create --org acme');
        }
      }
    }
  });

  it('test_runs:report reports statuses and nothing else; pull_requests:write does not report them', async () => {
    await h.queueWithPrs(1);
    const reporter = await tokenWith({ scopes: ['test_runs:report'] });
    const writer = await tokenWith({ scopes: ['pull_requests:write'] });
    const status = h.body({ sha: 'a'.repeat(40), context: 'ci', state: 'SUCCESS' });
    const refused = await h.post('/v1/reportStatus', status, { 'x-api-token': writer });
    expect(errorOf(refused)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(errorOf(refused).message).toContain('test_runs:report');
    // Allowed: the service answers about the run itself (no run has that commit).
    const reported = await h.post('/v1/reportStatus', status, { 'x-api-token': reporter });
    expect(reported.statusCode).not.toBe(403);
    expect(
      errorOf(await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }), { 'x-api-token': reporter })),
    ).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    // The token with every scope reports too.
    expect((await h.post('/v1/reportStatus', status)).statusCode).toBe(reported.statusCode);
  });
});

describe('what a submission asks for', () => {
  it('a priority needs pull_requests:priority, noBatch pull_requests:skip_batching (v1)', async () => {
    await h.queueWithPrs(2);
    const writer = await tokenWith({ scopes: ['pull_requests:write'] });
    const withPriority = await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 }, priority: 'HIGH' }), {
      'x-api-token': writer,
    });
    expect(errorOf(withPriority)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(errorOf(withPriority).message).toContain('pull_requests:priority');
    const alone = await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 }, noBatch: true }), {
      'x-api-token': writer,
    });
    expect(errorOf(alone).message).toContain('pull_requests:skip_batching');
    // Refused submissions queued nothing.
    const state = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } }), { 'x-api-token': writer });
    expect(state.statusCode).toBe(404);
    expect(
      (await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }), { 'x-api-token': writer })).statusCode,
    ).toBe(200);

    const both = await tokenWith({
      scopes: ['pull_requests:write', 'pull_requests:priority', 'pull_requests:skip_batching'],
    });
    const res = await h.post('/v1/submitPullRequest', h.body({ pr: { number: 2 }, priority: 'HIGH', noBatch: true }), {
      'x-api-token': both,
    });
    expect(res.statusCode).toBe(200);
  });

  it('a priority needs pull_requests:priority on v2 too', async () => {
    await h.queueWithPrs(1);
    const queues = json(
      await h.app.inject({ method: 'GET', url: '/v2/merge-queues', headers: { authorization: `Bearer ${h.token}` } }),
    );
    const id = (queues.data as { id: string }[])[0]!.id;
    const writer = await tokenWith({ scopes: ['pull_requests:write'] });
    const res = await h.app.inject({
      method: 'POST',
      url: `/v2/merge-queues/${id}/pull-requests`,
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ number: 1, priorityName: 'high' }),
    });
    expect(errorOf(res)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(errorOf(res).message).toContain('pull_requests:priority');
  });
});

describe('a token limited to repositories', () => {
  beforeEach(async () => {
    await h.queueWithPrs(0);
    await h.t.connectRepo('acme', 'github.com/acme/api');
    const other = { repo: { host: 'github.com', owner: 'acme', name: 'api' }, targetBranch: 'main' };
    expect((await h.post('/v1/createQueue', other)).statusCode).toBe(200);
  });

  it('acts on those and is refused on the others of its organization, naming the repository', async () => {
    const web = await tokenWith({ repos: [SLUG] });
    expect((await h.post('/v1/getQueue', h.body(), { 'x-api-token': web })).statusCode).toBe(200);
    const api = await h.post(
      '/v1/getQueue',
      { repo: { host: 'github.com', owner: 'acme', name: 'api' }, targetBranch: 'main' },
      { 'x-api-token': web },
    );
    expect(errorOf(api)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(errorOf(api).message).toContain('github.com/acme/api');
    const update = await h.post(
      '/v1/updateQueue',
      { repo: { host: 'GitHub.com', owner: 'ACME', name: 'api' }, targetBranch: 'main', state: 'PAUSED' },
      { 'x-api-token': web },
    );
    expect(errorOf(update).code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('lists only those, v1 and v2, and is refused a queue of another by id', async () => {
    const web = await tokenWith({ repos: [SLUG] });
    const v1 = json(await h.post('/v1/listQueues', {}, { 'x-api-token': web }));
    expect((v1.queues as { repo: { name: string } }[]).map((q) => q.repo.name)).toEqual(['web']);
    const all = json(await h.post('/v1/listQueues', {}));
    expect((all.queues as unknown[]).length).toBe(2);

    const v2 = (path: string, token: string) =>
      h.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}` } });
    const queues = json(await v2('/v2/merge-queues', web)).data as { id: string }[];
    expect(queues).toHaveLength(1);
    expect((await v2('/v2/repositories?providerUrl=https://github.com/acme/web', web)).statusCode).toBe(200);
    expect((await v2('/v2/repositories?providerUrl=https://github.com/acme/api', h.token)).statusCode).toBe(200);
    expect((await v2('/v2/repositories?providerUrl=https://github.com/acme/api', web)).statusCode).toBe(404);
    const every = json(await v2('/v2/merge-queues', h.token)).data as { id: string }[];
    const other = every.find((q) => q.id !== queues[0]!.id)!;
    const refused = await v2(`/v2/merge-queues/${other.id}`, web);
    expect(errorOf(refused)).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(errorOf(refused).message).toContain('github.com/acme/api');

    const metrics = await h.get('/v1/getMergeQueueMetrics', { 'x-api-token': web });
    expect(metrics.body).toMatch(/repo="[^"]*web"/);
    expect(metrics.body).not.toMatch(/repo="[^"]*api"/);
    expect((await h.get('/v1/getMergeQueueMetrics')).body).toMatch(/repo="[^"]*api"/);
  });
});

describe('expiry', () => {
  it('a token works until it expires, then answers 401 saying when it expired and what to do (v1, v2)', async () => {
    const expiresAt = h.t.clock.now() + 60_000;
    const token = await tokenWith({ expiresAt }, 'short');
    expect((await h.post('/v1/listQueues', {}, { 'x-api-token': token })).statusCode).toBe(200);
    h.t.clock.advance(60_000);
    const v1 = errorOf(await h.post('/v1/listQueues', {}, { 'x-api-token': token }));
    expect(v1).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(v1.message).toContain(`expired at ${new Date(expiresAt).toISOString()}`);
    expect(v1.message).toContain('greenline token create --org acme');
    const v2 = errorOf(
      await h.app.inject({ method: 'GET', url: '/v2/merge-queues', headers: { authorization: `Bearer ${token}` } }),
    );
    expect(v2).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    expect(v2.message).toContain('expired at');
  });
});

describe('tokens made before scopes existed', () => {
  it('keep every scope and every repository', async () => {
    // What the migration leaves of an older token: no scopes, no repositories, no expiry.
    const token = 'gl_older-token-made-before-scopes-000000000000';
    await insertApiToken(h.t.db, {
      id: 'older',
      org_id: orgId,
      name: 'older',
      token_hash: hashToken(token),
      created_at: 1,
      revoked_at: null,
    });
    expect((await h.post('/v1/listWebhooks', {}, { 'x-api-token': token })).statusCode).toBe(200);
    expect((await h.post('/v1/createQueue', h.body(), { 'x-api-token': token })).statusCode).toBe(200);
    const me = json(await h.post('/v1/getCurrentToken', {}, { 'x-api-token': token }));
    expect(me).toEqual({ id: 'older', name: 'older', org: 'acme', scopes: [...SCOPES], repos: null, expiresAt: null });
  });
});

describe('POST /v1/getCurrentToken', () => {
  it("describes the caller's token: scopes with read, repositories, expiry", async () => {
    const expiresAt = h.t.clock.now() + 3_600_000;
    const token = await tokenWith({ scopes: ['queues:write'], repos: ['GitHub.com/Acme/Web'], expiresAt }, 'ops');
    const me = json(await h.post('/v1/getCurrentToken', {}, { 'x-api-token': token }));
    expect(me).toMatchObject({
      name: 'ops',
      org: 'acme',
      scopes: ['read', 'queues:write'],
      repos: ['github.com/acme/web'],
      expiresAt: new Date(expiresAt).toISOString(),
    });
  });
});

describe('last use', () => {
  it('is recorded at most once a minute per token', async () => {
    const token = await tokenWith({}, 'used');
    const lastUsed = async () => (await listApiTokens(h.t.db, orgId)).find((t) => t.name === 'used')!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const first = h.t.clock.now();
    await h.post('/v1/listQueues', {}, { 'x-api-token': token });
    expect(await lastUsed()).toBe(first);
    h.t.clock.advance(LAST_USED_PRECISION_MS / 2);
    await h.post('/v1/listQueues', {}, { 'x-api-token': token });
    expect(await lastUsed()).toBe(first);
    h.t.clock.advance(LAST_USED_PRECISION_MS / 2);
    await h.post('/v1/listQueues', {}, { 'x-api-token': token });
    expect(await lastUsed()).toBe(first + LAST_USED_PRECISION_MS);
  });
});

describe('a read-only token', () => {
  it('reads, and every write is refused naming the scope it needs', async () => {
    await h.queueWithPrs(1);
    const reader = await tokenWith({ scopes: ['read'] });
    expect((await h.post('/v1/getQueue', h.body(), { 'x-api-token': reader })).statusCode).toBe(200);
    const pause = errorOf(await h.post('/v1/updateQueue', h.body({ state: 'PAUSED' }), { 'x-api-token': reader }));
    expect(pause).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect(pause.message).toBe(
      'POST /v1/updateQueue needs the scope queues:write, which this token does not have; create a token that has it: greenline token create --org acme --name <name> --scopes queues:write',
    );
    expect(json(await h.post('/v1/getQueue', h.body())).state).toBe('RUNNING');
  });
});
