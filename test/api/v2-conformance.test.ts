/**
 * Trunk's v2 merge-queue API, proved against Trunk's own document (test/fixtures/trunk): every answer
 * of every operation (2xx and errors) is validated with Ajv against the extract, every operation is
 * driven to a declared 2xx with schema-valid requests, schema-invalid requests get 400/422 and never a
 * 5xx, and a v1 client and a v2 client drive the same queue at once. On SQLite and PostgreSQL.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/databases.js';
import { createApiHarness, json, REPO, SLUG, type ApiHarness } from './api-harness.js';
import { pullRequestIdOf } from '../../src/store/api-ids.js';
import { OPERATIONS, v2Client, type V2Client } from './v2-client.js';

/** A parsed JSON answer (its shape is checked against the document where it matters). */
type Json = ReturnType<typeof json>;

const databases = await testDatabases();

describe.each(databases)('v2 API on $name', (database) => {
  let h: ApiHarness;
  let v2: V2Client;
  const seen = new Set<string>();
  let repositoryId: string;

  beforeEach(async () => {
    h = await createApiHarness({ databaseUrl: await database.url() });
    v2 = v2Client(h, seen);
    for (let number = 1; number <= 6; number++)
      h.t.forge.openPr(SLUG, { number, title: `Change ${number}`, author: 'dev', headBranch: `feature-${number}` });
    repositoryId = json(await v2.call('GET', `/v2/repositories?providerUrl=https://github.com/acme/web.git/`)).data[0]
      .id;
  });
  afterEach(() => h.close());
  afterAll(() => database.cleanup());

  const createQueue = async (extra: Record<string, unknown> = {}) => {
    const res = await v2.call('POST', '/v2/merge-queues', { repositoryId, targetBranch: 'main', ...extra });
    expect(res.statusCode, res.body).toBe(201);
    return json(res) as { id: string; config: Record<string, unknown> };
  };
  const submit = async (queueId: string, body: Record<string, unknown>) => {
    const res = await v2.call('POST', `/v2/merge-queues/${queueId}/pull-requests`, body);
    expect(res.statusCode, res.body).toBe(201);
    return json(res) as { id: string; number: number; queueEntry: Json };
  };
  const ok = async (method: Parameters<V2Client['call']>[0], path: string, body?: unknown) => {
    const res = await v2.call(method, path, body);
    expect(res.statusCode, `${method} ${path}: ${res.body}`).toBeLessThan(300);
    return res.body === '' ? undefined : json(res);
  };

  it('drives every operation to a 2xx that matches the document', async () => {
    const queue = await createQueue({ mode: 'queue', concurrency: 2, bisectionConcurrency: 1, enqueueingLabel: 'mq' });
    expect(queue.config).toMatchObject({ concurrency: 2, bisectionConcurrency: 1, enqueueingLabel: 'mq' });
    const q = `/v2/merge-queues/${queue.id}`;
    expect((await ok('GET', '/v2/merge-queues')).data.map((x: Json) => x.id)).toEqual([queue.id]);
    expect((await ok('GET', `/v2/merge-queues?repositoryId=${repositoryId}&targetBranch=main`)).data).toHaveLength(1);
    expect(await ok('GET', q)).toMatchObject({ id: queue.id, state: 'running', mode: 'queue', managedState: 'manual' });
    // The harness's repository is on the git forge: no provider is known (test/forge/links.test.ts has GitHub's).
    expect(await ok('GET', `/v2/repositories/${repositoryId}`)).toMatchObject({
      path: 'acme/web',
      provider: 'unknown',
    });

    const one = await submit(queue.id, { number: 1, priorityName: 'high' });
    expect(one.queueEntry).toMatchObject({ mergeQueueId: queue.id, priorityName: 'high', priorityValue: 10 });
    const two = await submit(queue.id, { number: 2, allowBatching: false, priorityValue: 0 });
    expect(two.queueEntry).toMatchObject({ allowBatching: false, skipsTheLine: true });
    await submit(queue.id, { number: 3 });
    await h.t.runEffects();

    const resolved = await ok('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=3,1,2,6`);
    expect(resolved.data.map((p: Json) => p.number)).toEqual([1, 2, 3, 6]);
    expect(resolved.data[3].queueEntry).toBeUndefined();
    expect((await ok('GET', `/v2/pull-requests?repositoryId=${repositoryId}&branch=feature-1`)).data[0].id).toBe(
      one.id,
    );
    const got = await ok('GET', `/v2/pull-requests/${one.id}`);
    expect(got).toMatchObject({ id: one.id, number: 1, title: 'Change 1', branch: 'feature-1', state: 'open' });
    expect(got.queueEntry.readiness.hasImpactedTargets).toBeDefined();

    const listed = await ok('GET', `${q}/pull-requests?state=testing,pending&limit=2&includeTotal=true`);
    expect(listed).toMatchObject({ hasMore: true, total: 3 });
    const rest = await ok('GET', `${q}/pull-requests?state=testing,pending&limit=2&cursor=${listed.nextCursor}`);
    expect([...listed.data, ...rest.data].map((p: Json) => p.number)).toEqual([3, 2, 1]);

    const order = await ok('GET', `${q}/order`);
    expect(order.batches.flatMap((b: Json) => b.pullRequests.map((p: Json) => p.number)).length).toBeGreaterThan(0);
    const graph = await ok('GET', `${q}/graph?includeImpactedTargets=true`);
    expect(graph.nodes.map((n: Json) => n.pullRequestNumber).sort()).toEqual([1, 2, 3]);

    const runs = await ok('GET', `${q}/verification-runs?status=inProgress`);
    expect(runs.data.length).toBeGreaterThan(0);
    const runId = runs.data[0].id as string;
    expect(await ok('GET', `/v2/merge-queue-verification-runs/${runId}`)).toMatchObject({
      id: runId,
      status: 'inProgress',
    });
    const tested = runs.data[0].testedPullRequests[0].id as string;
    expect((await ok('GET', `/v2/pull-requests/${tested}/verification-runs`)).data.map((r: Json) => r.id)).toContain(
      runId,
    );

    expect(await ok('POST', `/v2/pull-requests/${one.id}/reprioritize`, { priorityName: 'low' })).toMatchObject({
      queueEntry: { priorityName: 'low', priorityValue: 200 },
    });
    expect(await ok('PATCH', `/v2/pull-requests/${one.id}/queue-entry`, { allowBatching: false })).toMatchObject({
      queueEntry: { allowBatching: false },
    });
    const testing = (await ok('GET', `${q}/pull-requests?state=testing`)).data[0];
    expect((await ok('POST', `/v2/pull-requests/${testing.id}/restart-tests`)).queueEntry.state).toMatch(
      /pending|testing/,
    );
    expect((await ok('POST', `/v2/pull-requests/${one.id}/dequeue`)).queueEntry.state).toBe('cancelled');

    const history = await ok('GET', `/v2/pull-requests/${one.id}/queue-entry-history`);
    expect(history.data.at(-1)).toMatchObject({ state: 'cancelled', reason: 'API_REQUESTED' });
    const newest = await ok('GET', `/v2/pull-requests/${one.id}/queue-entry-history?direction=newest&limit=1`);
    expect(newest.data[0].state).toBe('cancelled');
    const batch = await ok('GET', `/v2/queue-entry-history?pullRequestIds=${one.id},${two.id}`);
    expect(batch.data.map((g: Json) => g.pullRequestId)).toEqual([one.id, two.id]);

    // Finish the runs: passed runs merge their PRs, so testing results appear.
    await h.t.runEffects();
    for (const id of h.t.ci.startedRunIds()) await h.t.ci.pass(id).catch(() => undefined);
    await h.t.runEffects();
    const since = new Date(h.t.clock.now() - 3_600_000).toISOString();
    const until = new Date(h.t.clock.now() + 3_600_000).toISOString();
    const results = await ok('GET', `${q}/testing-results?since=${since}&until=${until}`);
    expect(results.data.length).toBeGreaterThan(0);
    expect(results.data[0]).toMatchObject({ outcome: expect.any(String), verificationRunId: expect.any(String) });

    await ok('PUT', '/v2/impacted-targets', {
      repositoryId,
      targetBranch: 'main',
      sha: 'abc123',
      number: 4,
      impactedTargets: ['a'],
    });
    await ok('PUT', '/v2/impacted-targets', {
      repositoryId,
      targetBranch: 'main',
      sha: 'abc123',
      number: 4,
      impactsAllTargets: true,
    });

    const patched = await ok('PATCH', `${q}/config`, {
      requiredStatuses: ['ci'],
      allowBatching: true,
      mergeMethod: 'mergeCommit',
      notReadyTimeoutMinutes: 120,
    });
    expect(patched.config).toMatchObject({
      requiredStatuses: ['ci'],
      allowBatching: true,
      mergeMethod: 'mergeCommit',
      notReadyTimeoutMinutes: 120,
    });
    expect((await ok('PATCH', `${q}/config`, { requiredStatuses: [] })).config.requiredStatuses).toEqual([]);
    expect(await ok('POST', `${q}/pause`)).toEqual({
      id: queue.id,
      state: 'paused',
      mode: 'queue',
      pullRequestsUrl: `${q}/pull-requests`,
    });
    expect((await ok('POST', `${q}/drain`)).state).toBe('draining');
    expect((await ok('POST', `${q}/resume`)).state).toBe('running');
    expect((await ok('POST', `${q}/switch-modes`, { mode: 'graph' })).mode).toBe('graph');

    const metrics = await v2.call('GET', `${q}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect((await v2.call('GET', `/v2/merge-queues/metrics?repositoryId=${repositoryId}`)).statusCode).toBe(200);

    // Empty the queue, then delete it.
    for (const pr of (await ok('GET', `${q}/pull-requests?state=notReady,pending,testing,testsPassed,pendingFailure`))
      .data)
      await ok('POST', `/v2/pull-requests/${pr.id}/dequeue`);
    await h.t.runEffects();
    expect((await v2.call('DELETE', q)).statusCode).toBe(204);
    expect((await v2.call('GET', q)).statusCode).toBe(404);

    const succeeded = OPERATIONS.filter((op) => ![...seen].some((s) => s.startsWith(`${op} 2`)));
    expect(succeeded, 'operations never answered 2xx').toEqual([]);
  });

  /** Each pending PR's number → the numbers of the PRs directly ahead of it, and the graph's edges. */
  const dependencies = async (q: string) => {
    const order = await ok('GET', `${q}/order`);
    expect(order).toMatchObject({ isolationResolved: true, hasCycle: false });
    const graph = await ok('GET', `${q}/graph?includeImpactedTargets=true`);
    return {
      ahead: Object.fromEntries(
        order.pending.map((p: Json) => [p.pullRequest.number, p.directlyAhead.map((a: Json) => a.number)]),
      ),
      edges: graph.edges.map((e: Json) => [e.fromPullRequestNumber, e.toPullRequestNumber, e.commonImpactedTargets]),
    };
  };

  it('answers directlyAhead and the graph from the engine: overlapping targets in graph mode, transitively reduced', async () => {
    const queue = await createQueue({ mode: 'graph', concurrency: 1 });
    const q = `/v2/merge-queues/${queue.id}`;
    const targets: Record<number, string[]> = { 1: ['a'], 2: ['b'], 3: ['a', 'b'], 4: ['c'], 5: ['a'], 6: [] };
    for (const [n, impactedTargets] of Object.entries(targets)) {
      const pr = await submit(queue.id, { number: Number(n) });
      await ok('PUT', '/v2/impacted-targets', {
        repositoryId,
        targetBranch: 'main',
        sha: (pr as Json).sha,
        number: Number(n),
        impactedTargets,
      });
    }
    await h.t.runEffects();
    // 1 is testing (a batch, not pending). 5 overlaps 1 and 3 on `a`, but 3 already waits on 1: 5 is
    // directly behind 3 only. 6 overlaps nothing.
    expect(await dependencies(q)).toEqual({
      ahead: { 2: [], 3: [1, 2], 4: [], 5: [3], 6: [] },
      edges: [
        [1, 3, ['a']],
        [2, 3, ['b']],
        [3, 5, ['a']],
      ],
    });
  });

  it('answers directlyAhead and the graph from the engine: the PR just ahead in queue mode', async () => {
    const queue = await createQueue({ mode: 'queue', concurrency: 1 });
    const q = `/v2/merge-queues/${queue.id}`;
    await submit(queue.id, { number: 1 });
    await submit(queue.id, { number: 2 });
    await submit(queue.id, { number: 3, priorityName: 'high' });
    await h.t.runEffects();
    // 1 started testing alone and keeps its place; 3, of higher priority, comes next, before 2.
    expect(await dependencies(q)).toEqual({
      ahead: { 3: [1], 2: [3] },
      edges: [
        [1, 3, undefined],
        [3, 2, undefined],
      ],
    });
  });

  it('answers the v2 semantics where they differ from v1', async () => {
    const queue = await createQueue();
    const pr = await submit(queue.id, { number: 1 });
    const again = await v2.call('POST', `/v2/merge-queues/${queue.id}/pull-requests`, { number: 1 });
    expect(again.statusCode).toBe(409);
    expect(json(again).error.code).toBe('PR_ALREADY_ENQUEUED');
    await h.t.runEffects();
    // restart-tests of an entry that is not testing or pendingFailure, dequeue of a dequeued one
    await submit(queue.id, { number: 5 });
    const notReady = json(await v2.call('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=5`)).data[0];
    if (notReady.queueEntry.state !== 'testing') {
      const restart = await v2.call('POST', `/v2/pull-requests/${notReady.id}/restart-tests`);
      expect(json(restart).error.code).toBe('PR_TESTS_NOT_RESTARTABLE');
    }
    await v2.call('POST', `/v2/pull-requests/${pr.id}/dequeue`);
    const twice = await v2.call('POST', `/v2/pull-requests/${pr.id}/dequeue`);
    expect(json(twice).error.code).toBe('PR_NOT_IN_ACTIVE_STATE');
    // a queue that holds PRs is not deleted
    const del = await v2.call('DELETE', `/v2/merge-queues/${queue.id}`);
    expect([del.statusCode, json(del).error.code]).toEqual([409, 'QUEUE_HAS_ACTIVE_ENTRIES']);
    // a second queue for the same branch
    const dup = await v2.call('POST', '/v2/merge-queues', { repositoryId, targetBranch: 'main' });
    expect([dup.statusCode, json(dup).error.code]).toEqual([409, 'QUEUE_ALREADY_EXISTS']);
    // An empty JSON body is no body: ignored where the operation takes none, refused where it needs one.
    const empty = { 'content-type': 'application/json' };
    expect((await v2.call('POST', `/v2/merge-queues/${queue.id}/drain`, '', empty)).statusCode).toBe(200);
    expect((await v2.call('POST', `/v2/merge-queues/${queue.id}/resume`, '', empty)).statusCode).toBe(200);
    expect((await v2.call('POST', `/v2/merge-queues/${queue.id}/pull-requests`, '', empty)).statusCode).toBe(400);
    // Terraform's writes mark the queue; another write drifts it
    await v2.call('PATCH', `/v2/merge-queues/${queue.id}/config`, { concurrency: 3 }, { 'x-source': 'terraform' });
    expect(json(await v2.call('GET', `/v2/merge-queues/${queue.id}`)).managedState).toBe('terraform');
    await v2.call('PATCH', `/v2/merge-queues/${queue.id}/config`, { concurrency: 4 });
    expect(json(await v2.call('GET', `/v2/merge-queues/${queue.id}`)).managedState).toBe('terraformWithDrift');
  });

  it('answers each refusal of the service with the v2 code of its cause, and v1 as before', async () => {
    const queue = await createQueue({ mode: 'queue' });
    const q = `/v2/merge-queues/${queue.id}`;
    const refusal = (res: Parameters<typeof json>[0]) => [res.statusCode, json(res).error.code];
    // PR 1 passed its tests and its merge is in flight: no longer dequeued, nor restarted.
    const one = await submit(queue.id, { number: 1 });
    await h.t.runEffects();
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    const dequeue = await v2.call('POST', `/v2/pull-requests/${one.id}/dequeue`);
    expect(refusal(dequeue)).toEqual([409, 'PR_NOT_IN_ACTIVE_STATE']);
    expect(json(dequeue).error.message).toMatch(/being merged/);
    expect(refusal(await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } })))).toEqual([
      400,
      'INVALID_OPERATION',
    ]);
    expect(refusal(await v2.call('POST', `/v2/pull-requests/${one.id}/restart-tests`))).toEqual([
      422,
      'PR_TESTS_NOT_RESTARTABLE',
    ]);
    // Settings the queue's checks refuse are invalid, not a mode change.
    expect(refusal(await v2.call('PATCH', `${q}/config`, { testingTimeoutMinutes: 0 }))).toEqual([
      400,
      'VALIDATION_FAILED',
    ]);

    // PR 2 under test when the mode changes: the queue switches modes once it has left.
    await h.t.runEffects();
    await submit(queue.id, { number: 2 });
    await h.t.runEffects();
    expect(await ok('POST', `${q}/switch-modes`, { mode: 'graph' })).toMatchObject({ state: 'switchingModes' });
    expect(refusal(await v2.call('POST', `${q}/switch-modes`, { mode: 'queue' }))).toEqual([
      409,
      'MODE_CHANGE_IN_PROGRESS',
    ]);
    expect(refusal(await v2.call('PATCH', `${q}/config`, { concurrency: 3 }))).toEqual([
      409,
      'MODE_CHANGE_IN_PROGRESS',
    ]);
    // Trunk declares no 409 for pause: asked without the document's check.
    const pause = await h.app.inject({
      method: 'POST',
      url: `${q}/pause`,
      headers: { authorization: `Bearer ${h.token}` },
    });
    expect(refusal(pause)).toEqual([409, 'MODE_CHANGE_IN_PROGRESS']);
    expect(json(await v2.call('GET', q))).toMatchObject({ state: 'switchingModes', mode: 'queue' });
    expect(json(await v2.call('GET', q)).config.concurrency).not.toBe(3);
    // v1 as before: a state is refused under INVALID_OPERATION, settings apply.
    expect(refusal(await h.post('/v1/updateQueue', h.body({ state: 'PAUSED' })))).toEqual([400, 'INVALID_OPERATION']);
    expect((await h.post('/v1/updateQueue', h.body({ concurrency: 3 }))).statusCode).toBe(200);
    expect(json(await v2.call('GET', q)).config.concurrency).toBe(3);
  });

  it('refuses schema-invalid requests with 400 or 422, never 5xx', async () => {
    const queue = await createQueue();
    const pr = await submit(queue.id, { number: 1 });
    const q = `/v2/merge-queues/${queue.id}`;
    const bad: [Parameters<V2Client['call']>[0], string, unknown?][] = [
      ['GET', '/v2/merge-queues?limit=0'],
      ['GET', '/v2/merge-queues?limit=101'],
      ['GET', '/v2/merge-queues?targetBranch=main'],
      ['GET', '/v2/merge-queues?cursor=bogus'],
      ['POST', '/v2/merge-queues', { repositoryId, targetBranch: 'dev', mode: 'single' }],
      ['POST', '/v2/merge-queues', { repositoryId, targetBranch: 'dev', repo: 'x' }],
      ['POST', '/v2/merge-queues', { targetBranch: 'dev' }],
      ['GET', '/v2/merge-queues/metrics?repositoryId=nope'],
      ['GET', `${q}/graph?includeImpactedTargets=maybe`],
      ['GET', `${q}/testing-results`],
      ['GET', `${q}/testing-results?since=2026-01-01T00:00:00Z&until=2026-03-01T00:00:00Z`],
      ['POST', `${q}/pull-requests`, { number: 2, priorityValue: 1, priorityName: 'high' }],
      ['POST', `${q}/pull-requests`, { number: 0 }],
      ['POST', `${q}/pull-requests`, { number: 2, noBatch: true }],
      ['GET', `${q}/pull-requests?state=NOT_READY`],
      ['GET', `${q}/pull-requests?state=not_ready`],
      ['GET', `${q}/pull-requests?sort=number`],
      ['POST', `${q}/switch-modes`, { mode: 'parallel' }],
      ['PATCH', `${q}/config`, { repo: 'x' }],
      ['PATCH', `${q}/config`, { mergeMethod: 'merge_commit' }],
      ['PATCH', `${q}/config`, { notReadyTimeoutMinutes: 90 }],
      [
        'PUT',
        '/v2/impacted-targets',
        { repositoryId, targetBranch: 'main', sha: 'a-b', number: 1, impactsAllTargets: true },
      ],
      ['PUT', '/v2/impacted-targets', { repositoryId, targetBranch: 'main', sha: 'ab', number: 1 }],
      ['GET', `${q}/verification-runs?status=in_progress`],
      ['GET', `/v2/pull-requests/${pr.id}/verification-runs?createdAfter=2026-01-01T00:00:00Z`],
      ['GET', `/v2/pull-requests/${pr.id}/queue-entry-history?direction=up`],
      ['GET', '/v2/queue-entry-history'],
      ['GET', '/v2/queue-entry-history?pullRequestIds=1,2'],
      ['GET', `/v2/pull-requests?repositoryId=${repositoryId}`],
      ['GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=1&branch=x`],
      ['GET', '/v2/pull-requests/not-a-uuid'],
      ['POST', `/v2/pull-requests/${pr.id}/reprioritize`, {}],
      ['POST', `/v2/pull-requests/${pr.id}/reprioritize`, { priorityValue: 1, priorityName: 'high' }],
      ['PATCH', `/v2/pull-requests/${pr.id}/queue-entry`, {}],
      ['PATCH', `/v2/pull-requests/${pr.id}/queue-entry`, { skipsTheLine: true }],
      ['GET', '/v2/repositories'],
      ['GET', '/v2/repositories/not-a-uuid'],
      ['POST', `${q}/pull-requests`, '{"number": 2'],
    ];
    for (const [method, path, body] of bad) {
      const res = await v2.call(method, path, body);
      expect([400, 422], `${method} ${path} → ${res.statusCode} ${res.body}`).toContain(res.statusCode);
    }
  });

  it("answers another organization's resources as unknown, and checks tokens", async () => {
    const queue = await createQueue();
    const pr = await submit(queue.id, { number: 1 });
    const { token } = await h.t.createOrg('other');
    const other = { authorization: `Bearer ${token}` };
    for (const path of [
      `/v2/merge-queues/${queue.id}`,
      `/v2/pull-requests/${pr.id}`,
      `/v2/repositories/${repositoryId}`,
    ]) {
      const res = await v2.call('GET', path, undefined, other);
      expect(res.statusCode, path).toBe(404);
    }
    expect(json(await v2.call('GET', '/v2/merge-queues', undefined, other)).data).toEqual([]);
    const batch = json(await v2.call('GET', `/v2/queue-entry-history?pullRequestIds=${pr.id}`, undefined, other));
    expect(batch.data).toEqual([{ pullRequestId: pr.id, transitions: [] }]);
    const none = await v2.call('GET', '/v2/merge-queues', undefined, { authorization: '' });
    expect(json(none).error.code).toBe('AUTHENTICATION_REQUIRED');
    const wrong = await v2.call('GET', '/v2/merge-queues', undefined, { authorization: 'Bearer nope' });
    expect(json(wrong).error.code).toBe('INVALID_TOKEN');
    // A cursor is bound to its operation and filters.
    await submit(queue.id, { number: 2 });
    const page = json(await v2.call('GET', `/v2/merge-queues/${queue.id}/pull-requests?limit=1`));
    const moved = await v2.call(
      'GET',
      `/v2/merge-queues/${queue.id}/pull-requests?limit=1&state=pending&cursor=${page.nextCursor}`,
    );
    expect(json(moved).error.code).toBe('INVALID_CURSOR');
    const elsewhere = await v2.call('GET', `/v2/merge-queues?cursor=${page.nextCursor}`);
    expect(json(elsewhere).error.code).toBe('INVALID_CURSOR');
  });

  it('lets a v1 client and a v2 client drive the same queue at once', async () => {
    const queue = await createQueue();
    const v1Submit = (number: number) => h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
    const answers = await Promise.all([
      v1Submit(1),
      v2.call('POST', `/v2/merge-queues/${queue.id}/pull-requests`, { number: 2 }),
      v1Submit(3),
      v2.call('POST', `/v2/merge-queues/${queue.id}/pull-requests`, { number: 4 }),
    ]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 201, 200, 201]);
    await h.t.runEffects();
    const v1Queue = json(await h.post('/v1/getQueue', h.body()));
    const v2List = json(await v2.call('GET', `/v2/merge-queues/${queue.id}/pull-requests`));
    expect(v1Queue.enqueuedPullRequests.map((p: Json) => p.prNumber).sort()).toEqual([1, 2, 3, 4]);
    expect(v2List.data.map((p: Json) => p.number).sort()).toEqual([1, 2, 3, 4]);
    // v1 cancels what v2 submitted, v2 dequeues what v1 submitted, at once.
    const ids = json(await v2.call('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=1,2`)).data;
    const [cancel, dequeue] = await Promise.all([
      h.post('/v1/cancelPullRequest', h.body({ pr: { number: 2 } })),
      v2.call('POST', `/v2/pull-requests/${ids[0].id}/dequeue`),
    ]);
    expect([cancel.statusCode, dequeue.statusCode]).toEqual([200, 200]);
    const v1Pr = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } })));
    expect(v1Pr.state).toBe('CANCELLED');
    expect(json(await v2.call('GET', `/v2/pull-requests/${ids[1].id}`)).queueEntry.state).toBe('cancelled');
    // v2's view of v1's states, and v1's test run ids are v2's verification run ids
    const v1Three = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 3 } })));
    const v2Three = json(await v2.call('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=3`)).data[0];
    expect(v2Three.queueEntry.id).toBe(v1Three.id);
    const runId = h.t.ci.startedRunIds()[0]!;
    const v1Run = await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId }));
    expect(v1Run.statusCode).toBe(200);
    expect(json(await v2.call('GET', `/v2/merge-queue-verification-runs/${runId}`)).id).toBe(runId);
  });

  it('gives a PR its v2 id when it enters a queue, through v1 as through v2', async () => {
    const queue = await createQueue();
    const submittedAt = h.t.clock.now();
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    h.t.clock.advance(60_000);
    // Never named by v2 before: found at its id, created when it entered the queue.
    const viaV1 = json(await v2.call('GET', `/v2/pull-requests/${pullRequestIdOf(repositoryId, 1)}`));
    expect(viaV1).toMatchObject({ number: 1, createdAt: new Date(submittedAt).toISOString() });
    expect(viaV1.queueEntry.mergeQueueId).toBe(queue.id);
    const viaV2 = await submit(queue.id, { number: 2 });
    expect(viaV2.id).toBe(pullRequestIdOf(repositoryId, 2));
    expect((viaV2 as Json).createdAt).toBe(new Date(h.t.clock.now()).toISOString());
  });

  it('runs the v1 → v2 migration examples of the notes', async () => {
    await h.post('/v1/createQueue', h.body({ mode: 'single', concurrency: 3 }));
    const queue = json(await v2.call('GET', `/v2/merge-queues?repositoryId=${repositoryId}&targetBranch=main`)).data[0];
    // POST /submitPullRequest {priority, noBatch} → POST /v2/merge-queues/{id}/pull-requests {priorityValue, allowBatching}
    await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 }, priority: 'high', noBatch: true }));
    const viaV2 = await submit(queue.id, { number: 2, priorityName: 'high', allowBatching: false });
    const [v1One] = json(await v2.call('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=1`)).data;
    expect(v1One.queueEntry).toMatchObject({ priorityName: viaV2.queueEntry.priorityName, allowBatching: false });
    // POST /getSubmittedPullRequest → GET /v2/pull-requests?repositoryId=&number=, then GET /v2/pull-requests/{id}
    const v1 = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } })));
    const v2Pr = json(await v2.call('GET', `/v2/pull-requests/${v1One.id}`));
    expect(v2Pr).toMatchObject({
      number: v1.prNumber,
      title: v1.prTitle,
      sha: v1.prSha,
      baseBranch: v1.prBaseBranch,
      author: v1.prAuthor,
    });
    expect(v2Pr.queueEntry).toMatchObject({
      id: v1.id,
      state: v1.state === 'TESTING' ? 'testing' : expect.any(String),
      skipsTheLine: v1.skipTheLine,
      direct: v1.forceEnqueued,
    });
    // ... with includeTimeline → queue-entry-history?direction=newest
    const timeline = json(
      await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, includeTimeline: true })),
    ).timeline;
    const history = json(
      await v2.call('GET', `/v2/pull-requests/${v1One.id}/queue-entry-history?direction=newest`),
    ).data;
    expect(history.map((t: Json) => t.changedAt)).toEqual(timeline.map((t: Json) => t.at));
    // POST /updateQueue {state: PAUSED} → POST …/pause; {mode: parallel} → switch-modes graph
    await h.post('/v1/updateQueue', h.body({ state: 'PAUSED' }));
    expect(json(await v2.call('GET', `/v2/merge-queues/${queue.id}`)).state).toBe('paused');
    await v2.call('POST', `/v2/merge-queues/${queue.id}/resume`);
    expect(json(await h.post('/v1/getQueue', h.body())).state).toBe('RUNNING');
    // updateQueue settings → PATCH config with the v2 names
    await v2.call('PATCH', `/v2/merge-queues/${queue.id}/config`, {
      areCommentsEnabled: false,
      notReadyTimeoutMinutes: 180,
    });
    expect(json(await h.post('/v1/getQueue', h.body()))).toMatchObject({
      commentsEnabled: false,
      notReadyTimeoutHours: 3,
    });
    // POST /setImpactedTargets "ALL" → PUT /v2/impacted-targets impactsAllTargets: true (202)
    const put = await v2.call('PUT', '/v2/impacted-targets', {
      repositoryId,
      targetBranch: 'main',
      sha: 'abc',
      branch: 'feature-1',
      impactsAllTargets: true,
    });
    expect(put.statusCode).toBe(202);
    expect(REPO.name).toBe('web');
  });

  it('limits requests per organization, metrics more tightly', async () => {
    await h.close();
    h = await createApiHarness({ databaseUrl: await database.url(), v2Limits: { perSecond: 5, metricsPerSecond: 2 } });
    v2 = v2Client(h, seen);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await v2.call('GET', '/v2/merge-queues/metrics')).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await v2.call('GET', '/v2/merge-queues/metrics');
    expect(json(limited).error.code).toBe('RATE_LIMIT_EXCEEDED');
    const lists: number[] = [];
    for (let i = 0; i < 6; i++) lists.push((await v2.call('GET', '/v2/merge-queues')).statusCode);
    expect(lists.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});
