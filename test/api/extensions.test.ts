/** greenline's endpoints beyond Trunk's v1 API: reportStatus, getTestRunLog, healthz, OpenAPI, /docs. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

async function testingPr(): Promise<string> {
  await h.queueWithPrs(1);
  await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
  await h.t.runEffects();
  const [runId] = h.t.ci.startedRunIds();
  return runId!;
}
const prState = async () => json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } }))).state;

describe('POST /v1/reportStatus', () => {
  it('records a status by test run id: a success of the required check merges the PR', async () => {
    const runId = await testingPr();
    const res = await h.post('/v1/reportStatus', {
      repo: REPO,
      testRunId: runId,
      context: 'greenline/ci',
      state: 'SUCCESS',
      url: 'https://ci.example/run/1',
      description: 'green',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({});
    await h.t.runEffects();
    expect(await prState()).toBe('MERGED');
  });

  it('records a status by test commit sha', async () => {
    const runId = await testingPr();
    const details = json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId })));
    const res = await h.post('/v1/reportStatus', {
      repo: REPO,
      sha: details.testBranchSha,
      context: 'greenline/ci',
      state: 'pending',
    });
    expect(res.statusCode, res.body).toBe(200);
    const after = json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId })));
    expect(after.statusChecks).toEqual([{ context: 'greenline/ci', state: 'PENDING' }]);
  });

  it('needs testRunId or sha, a known state, and a known run', async () => {
    const runId = await testingPr();
    expect(errorOf(await h.post('/v1/reportStatus', { repo: REPO, context: 'ci', state: 'success' })).message).toBe(
      'Invalid request: body must have testRunId or sha',
    );
    expect(
      errorOf(await h.post('/v1/reportStatus', { repo: REPO, testRunId: runId, context: 'ci', state: 'green' }))
        .message,
    ).toBe(
      'Invalid request: body/state must be one of pending, success, failure, error, cancelled, skipped (any letter case)',
    );
    expect(
      errorOf(
        await h.post('/v1/reportStatus', {
          repo: REPO,
          testRunId: runId,
          context: 'ci',
          state: 'error',
          description: 'a\u0000',
        }),
      ).message,
    ).toBe('Invalid request: body/description must be text without NUL characters');
    expect(
      errorOf(await h.post('/v1/reportStatus', { repo: REPO, testRunId: 'nope', context: 'ci', state: 'success' })),
    ).toMatchObject({ status: 404, code: 'TEST_RUN_NOT_FOUND' });
  });
});

describe('POST /v1/getTestRunLog', () => {
  it('answers the log as text, and 404 LOG_NOT_FOUND for a run without one', async () => {
    const runId = await testingPr();
    expect(errorOf(await h.post('/v1/getTestRunLog', h.body({ testRunId: runId })))).toMatchObject({
      status: 404,
      code: 'LOG_NOT_FOUND',
    });
    h.t.ci.logs.set(runId, '$ npm test\nok 1 - builds\n');
    const res = await h.post('/v1/getTestRunLog', h.body({ testRunId: runId }));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe('$ npm test\nok 1 - builds\n');
  });
});

describe('GET /healthz', () => {
  it('answers without a token', async () => {
    const res = await h.get('/healthz', { 'x-api-token': undefined });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ status: 'ok' });
  });
});

describe('GET /v1/openapi.json and /docs', () => {
  it('serves an OpenAPI 3.1 document of every endpoint without a token', async () => {
    const res = await h.get('/v1/openapi.json', { 'x-api-token': undefined });
    expect(res.statusCode).toBe(200);
    const doc = json(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-token' });
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/healthz',
      '/v1/cancelPullRequest',
      '/v1/createNotificationChannel',
      '/v1/createQueue',
      '/v1/createWebhook',
      '/v1/deleteNotificationChannel',
      '/v1/deleteQueue',
      '/v1/deleteWebhook',
      '/v1/enableNotificationChannel',
      '/v1/enableWebhook',
      '/v1/getCurrentToken',
      '/v1/getMergeQueueMetrics',
      '/v1/getMergeQueueTestingDetails',
      '/v1/getPullRequestTry',
      '/v1/getQueue',
      '/v1/getQueueActivity',
      '/v1/getQueueHistory',
      '/v1/getSubmittedPullRequest',
      '/v1/getSubmittedPullRequests',
      '/v1/getTestRunChanges',
      '/v1/getTestRunLog',
      '/v1/listAuditEvents',
      '/v1/listConcludedPullRequests',
      '/v1/listMergeQueueTestingResults',
      '/v1/listNotificationChannels',
      '/v1/listPullRequests',
      '/v1/listQueues',
      '/v1/listWebhookDeliveries',
      '/v1/listWebhooks',
      '/v1/notifyRefsMoved',
      '/v1/queuePullRequest',
      '/v1/redeliverWebhook',
      '/v1/reportStatus',
      '/v1/restartTestsOnPullRequest',
      '/v1/rotateWebhookSecret',
      '/v1/setImpactedTargets',
      '/v1/streamQueueEvents',
      '/v1/submitPullRequest',
      '/v1/testNotificationChannel',
      '/v1/tryPullRequest',
      '/v1/updateQueue',
    ]);
    const submit = doc.paths['/v1/submitPullRequest'].post;
    expect(submit.requestBody.content['application/json'].schema.required).toEqual(['repo', 'targetBranch', 'pr']);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/v1/getMergeQueueMetrics'].get.responses['200'].content).toHaveProperty([
      'text/plain; version=0.0.4; charset=utf-8',
    ]);
    expect(doc.paths['/v1/streamQueueEvents'].get.responses['200'].content).toHaveProperty(['text/event-stream']);
  });

  it('renders the reference page from bundled assets, with no address outside the server', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    const init = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    for (const text of [page.body, init.body]) expect(text).not.toMatch(/(src|href)=["']https?:/);
    expect(init.body).toContain('validatorUrl: null');
    const bundle = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    const spec = await h.app.inject({ method: 'GET', url: '/docs/json' });
    expect(json(spec).openapi).toBe('3.1.0');
  });
});

describe('POST /v1/notifyRefsMoved', () => {
  const SHA = (c: string) => c.repeat(40);
  const moved = (ref: string) => ({ ref, oldSha: SHA('0'), newSha: SHA('a') });

  it("reads the queue of a PR head that moved at once, found by the repository's name or its remote", async () => {
    await h.queueWithPrs(1);
    await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
    await h.t.app.leases.refresh();
    h.t.forge.pushToPr(SLUG, 1);
    const res = await h.post('/v1/notifyRefsMoved', { repo: REPO, refs: [moved('refs/pull/1/head')] });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ queuesRead: 1 });
    expect(await prState()).toBe('CANCELLED');

    await h.t.connectRepo('acme', 'github.com/acme/api', { remote: '/srv/git/api.git' });
    const byUrl = await h.post('/v1/notifyRefsMoved', { url: '/srv/git/api.git/', refs: [moved('refs/heads/main')] });
    expect(json(byUrl)).toEqual({ queuesRead: 0 });
  });

  it('says what is wrong with a request: neither or both of repo and url, an unknown remote, a bad sha', async () => {
    const neither = await h.post('/v1/notifyRefsMoved', { refs: [moved('refs/heads/main')] });
    expect(errorOf(neither)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(errorOf(neither).message).toContain('name the repository by repo {host, owner, name} or by url');
    const both = await h.post('/v1/notifyRefsMoved', { repo: REPO, url: '/x', refs: [moved('refs/heads/main')] });
    expect(errorOf(both).status).toBe(400);
    const unknown = await h.post('/v1/notifyRefsMoved', { url: '/srv/git/none.git', refs: [moved('refs/heads/main')] });
    expect(errorOf(unknown)).toMatchObject({ status: 404, code: 'REPO_NOT_FOUND' });
    expect(errorOf(unknown).message).toContain('no repository of this organization was connected with that --remote');
    const badSha = await h.post('/v1/notifyRefsMoved', {
      repo: REPO,
      refs: [{ ref: 'refs/heads/main', oldSha: 'x', newSha: SHA('a') }],
    });
    expect(errorOf(badSha)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    const none = await h.post('/v1/notifyRefsMoved', { repo: REPO, refs: [] });
    expect(errorOf(none).status).toBe(400);
  });
});
