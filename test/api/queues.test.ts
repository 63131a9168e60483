import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_CONFIG } from '../../src/engine/config.js';
import { createApiHarness, errorOf, json, SLUG, type ApiHarness } from './api-harness.js';
import { v2Client } from './v2-client.js';

const SETTINGS_KEYS = [
  'state',
  'branch',
  'mode',
  'concurrency',
  'testingTimeoutMinutes',
  'canOptimisticallyMerge',
  'pendingFailureDepth',
  'batch',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
  'createPrsForTestingBranches',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'bisectionConcurrency',
  'requiredStatuses',
  'directMergeMode',
  'optimizationMode',
  'mergeMethod',
  'extensionEnabled',
  'enqueueingLabel',
  'labelCommandsEnabled',
  'stateLabelsEnabled',
  'notReadyTimeoutHours',
  'testBranchConstructionMode',
];

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>, headers?: Record<string, string>) =>
  h.post('/v1/updateQueue', h.body(fields), headers);

describe('the Terraform flow: createQueue → getQueue → updateQueue twice → deleteQueue', () => {
  it('creates, reads, updates idempotently and deletes a queue', async () => {
    const created = await h.post('/v1/createQueue', h.body({ mode: 'single', concurrency: 2 }));
    expect(created.statusCode, created.body).toBe(200);
    expect(json(created)).toEqual({});

    const got = await h.post('/v1/getQueue', h.body());
    expect(got.statusCode, got.body).toBe(200);
    const queue = json(got);
    expect(Object.keys(queue).sort()).toEqual([...SETTINGS_KEYS, 'enqueuedPullRequests'].sort());
    const { concurrency: _c, bisectionConcurrency: _b, ...defaults } = DEFAULT_QUEUE_CONFIG;
    expect(queue).toEqual({
      ...defaults,
      state: 'RUNNING',
      branch: 'main',
      concurrency: 2,
      bisectionConcurrency: 2,
      enqueuedPullRequests: [],
    });

    const change = {
      concurrency: 3,
      testingTimeoutMinutes: 60,
      pendingFailureDepth: 0,
      canOptimisticallyMerge: true,
      batch: true,
      batchingMaxWaitTimeMinutes: 10,
      batchingMinSize: 2,
      mergeMethod: 'merge_commit',
      commentsEnabled: false,
      commandsEnabled: true,
      createPrsForTestingBranches: false,
      statusCheckEnabled: true,
      directMergeMode: 'off',
      optimizationMode: 'bisection_skip_redundant_tests',
      bisectionConcurrency: 4,
      requiredStatuses: ['build', 'test'],
    };
    const first = await update(change, { 'x-source': 'terraform' });
    expect(first.statusCode, first.body).toBe(200);
    const second = await update(change, { 'x-source': 'terraform' });
    expect(second.statusCode).toBe(200);
    expect(json(second)).toEqual(json(first));
    expect(Object.keys(json(first)).sort()).toEqual([...SETTINGS_KEYS].sort());
    // Answered to Terraform in Trunk's lowercase spelling (enum-case.test.ts).
    expect(json(first)).toMatchObject({ ...change, state: 'running', branch: 'main', mode: 'single' });

    const deleted = await h.post('/v1/deleteQueue', h.body());
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(json(deleted)).toEqual({});
    expect(errorOf(await h.post('/v1/getQueue', h.body()))).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
  });
});

describe('createQueue', () => {
  it('answers 409 when the branch already has a queue', async () => {
    await h.post('/v1/createQueue', h.body());
    expect(errorOf(await h.post('/v1/createQueue', h.body({ mode: 'parallel' })))).toEqual({
      status: 409,
      code: 'QUEUE_EXISTS',
      message: 'A merge queue already exists for branch "main" in this repository',
    });
  });

  it('takes mode in any case', async () => {
    expect((await h.post('/v1/createQueue', h.body({ mode: 'PARALLEL' }))).statusCode).toBe(200);
    expect(json(await h.post('/v1/getQueue', h.body())).mode).toBe('parallel');
  });

  it('refuses the settings that only updateQueue sets, instead of dropping them', async () => {
    expect(errorOf(await h.post('/v1/createQueue', h.body({ batch: true })))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message:
        'Invalid request: body/batch cannot be set by createQueue; create the queue, then set it with updateQueue',
    });
    expect(errorOf(await h.post('/v1/getQueue', h.body())).status).toBe(404);
  });

  it('validates concurrency with the limits v2 has', async () => {
    expect(errorOf(await h.post('/v1/createQueue', h.body({ concurrency: 0 }))).message).toBe(
      'Invalid request: body/concurrency must be an integer from 1 to 1000, got 0',
    );
    const tooMany = await h.post('/v1/createQueue', h.body({ concurrency: 1_000_000 }));
    expect(tooMany.statusCode).toBe(400);
    expect(errorOf(tooMany).message).toBe(
      'Invalid request: body/concurrency must be an integer from 1 to 1000, got 1000000',
    );
    expect(errorOf(await h.post('/v1/getQueue', h.body())).status).toBe(404);
  });
});

describe('createQueue for a branch the forge does not have', () => {
  const missing = 'No branch doesnotexist in github.com/acme/web: create it first, or check the name';

  it('is refused on v1 with a 400 that names the branch and what to do', async () => {
    expect(errorOf(await h.post('/v1/createQueue', h.body({ targetBranch: 'doesnotexist' })))).toEqual({
      status: 400,
      code: 'TARGET_BRANCH_NOT_FOUND',
      message: missing,
    });
    expect(errorOf(await h.post('/v1/getQueue', h.body({ targetBranch: 'doesnotexist' }))).status).toBe(404);
    h.t.forge.pushToBranch(SLUG, 'doesnotexist');
    expect((await h.post('/v1/createQueue', h.body({ targetBranch: 'doesnotexist' }))).statusCode).toBe(200);
  });

  it('is refused on v2 with a 400 that names the branch and what to do', async () => {
    const v2 = v2Client(h);
    const repositoryId = json(await v2.call('GET', '/v2/repositories?providerUrl=https://github.com/acme/web.git'))
      .data[0].id;
    const res = await v2.call('POST', '/v2/merge-queues', { repositoryId, targetBranch: 'doesnotexist' });
    expect([res.statusCode, json(res).error]).toEqual([400, { code: 'VALIDATION_FAILED', message: missing }]);
    expect(json(await v2.call('GET', `/v2/merge-queues?repositoryId=${repositoryId}`)).data).toEqual([]);
  });

  it('is accepted when the forge cannot be reached, and the queue and its PRs say that its branch could not be read', async () => {
    h.t.forge.failNext('getBranchSha', new Error('connect ECONNREFUSED'));
    const release = (extra: Record<string, unknown> = {}) => h.body({ targetBranch: 'release', ...extra });
    expect((await h.post('/v1/createQueue', release())).statusCode).toBe(200);
    h.t.forge.openPr(SLUG, { number: 1, baseBranch: 'release' });
    expect((await h.post('/v1/submitPullRequest', release({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();

    const unread =
      /^(Submitted|Queued): the target branch could not be read from the forge yet \(the forge could not be reached, or has no such branch\): nothing is tested until it is, and it is read again while PRs wait; if the branch does not exist, create it, or delete this queue and create one for the right branch\.$/;
    const pr = json(await h.post('/v1/getSubmittedPullRequest', release({ pr: { number: 1 } })));
    expect(pr.reason).toMatchObject({
      code: 'TARGET_UNREAD',
      message: expect.stringMatching(unread),
      detail: 'target branch release',
    });
    expect(pr.waitingOn).toEqual({
      code: 'TARGET_UNREAD',
      message:
        'The target branch could not be read from the forge yet (the forge could not be reached, or has no such branch): nothing is tested until it is, and it is read again while PRs wait; if the branch does not exist, create it, or delete this queue and create one for the right branch.',
    });
    const activity = json(await h.post('/v1/getQueueActivity', release()));
    expect(activity).toMatchObject({ targetSha: null, targetUnread: pr.waitingOn.message });
    expect(activity.pullRequests[0].explanation.code).toBe('TARGET_UNREAD');

    // Once the branch is there, the poller reads it and the PR is tested.
    h.t.forge.pushToBranch(SLUG, 'release');
    await h.t.app.poller.pollOnce();
    await h.t.runEffects();
    const tested = json(await h.post('/v1/getSubmittedPullRequest', release({ pr: { number: 1 } })));
    expect([tested.state, tested.reason.code]).toEqual(['TESTING', 'TEST_RUN_STARTED']);
    expect(json(await h.post('/v1/getQueueActivity', release())).targetUnread).toBeNull();
  });
});

describe('getQueue', () => {
  it('lists the enqueued PRs in queue order, without NOT_READY ones', async () => {
    await h.queueWithPrs(4);
    h.t.forge.openPr(SLUG, { number: 2, mergeability: 'not_mergeable' });
    const submit = (number: number, priority?: string) =>
      h.post('/v1/submitPullRequest', h.body({ pr: { number }, ...(priority ? { priority } : {}) }));
    await submit(1);
    await h.t.runEffects();
    await submit(2);
    await submit(3, 'low');
    await submit(4, 'high');
    await h.t.runEffects();

    const queue = json(await h.post('/v1/getQueue', h.body()));
    expect(queue.enqueuedPullRequests.map((p: { prNumber: number; state: string }) => [p.prNumber, p.state])).toEqual([
      [1, 'TESTING'],
      [4, 'PENDING'],
      [3, 'PENDING'],
    ]);
    expect(Object.keys(queue.enqueuedPullRequests[1]).sort()).toEqual([
      'estimatedMergeAt',
      'estimatedMergeRange',
      'id',
      'noBatch',
      'position',
      'prAuthor',
      'prBaseBranch',
      'prNumber',
      'prSha',
      'prTitle',
      'priorityName',
      'priorityValue',
      'skipTheLine',
      'state',
      'stateChangedAt',
      'waitingOn',
    ]);
  });

  it('answers 404 when the branch has no queue', async () => {
    expect(errorOf(await h.post('/v1/getQueue', h.body({ targetBranch: 'release' })))).toMatchObject({
      status: 404,
      code: 'QUEUE_NOT_FOUND',
    });
  });
});

describe('updateQueue', () => {
  beforeEach(async () => {
    await h.post('/v1/createQueue', h.body());
  });

  it('changes only the fields it is given', async () => {
    const res = json(await update({ batchingMinSize: 6 }));
    expect(res).toMatchObject({ batchingMinSize: 6, concurrency: 1, batch: false, mergeMethod: 'squash' });
  });

  it('takes enums in any case and answers settings enums in lowercase', async () => {
    const res = json(
      await update({ state: 'Paused', mergeMethod: 'MERGE_COMMIT', directMergeMode: 'ALWAYS', mode: 'Parallel' }),
    );
    expect(res).toMatchObject({
      state: 'PAUSED',
      mergeMethod: 'merge_commit',
      directMergeMode: 'always',
      mode: 'parallel',
    });
    expect(json(await update({ state: 'draining' })).state).toBe('DRAINING');
  });

  it('maps the legacy names onto the current settings', async () => {
    const res = json(await update({ testingTimeoutMins: 45, isBatching: true, batchingMaxWaitTimeMins: 7 }));
    expect(res).toMatchObject({ testingTimeoutMinutes: 45, batch: true, batchingMaxWaitTimeMinutes: 7 });
    expect(json(await update({ batchingMode: 'none' })).batch).toBe(false);
    expect(json(await update({ batchingMode: 'SPECULATIVE' })).batch).toBe(true);
  });

  it('refuses a legacy name that disagrees with the current one', async () => {
    expect(errorOf(await update({ batch: true, isBatching: false })).message).toBe(
      'Invalid request: body/isBatching disagrees with body/batch; send only batch',
    );
  });

  it('sets an empty requiredStatuses override with [], keeps it on null, and removes it with deleteRequiredStatuses', async () => {
    expect(json(await update({ requiredStatuses: ['ci/build'] })).requiredStatuses).toEqual(['ci/build']);
    expect(json(await update({ requiredStatuses: null })).requiredStatuses).toEqual(['ci/build']);
    expect(json(await update({ requiredStatuses: [] })).requiredStatuses).toEqual([]);
    expect(json(await h.post('/v1/getQueue', h.body())).requiredStatuses).toEqual([]);
    expect(json(await update({ deleteRequiredStatuses: true })).requiredStatuses).toBeNull();
    expect(errorOf(await update({ requiredStatuses: [], deleteRequiredStatuses: true })).status).toBe(400);
  });

  it('under an empty override, a test run requires nothing: no CI runs and the PR merges', async () => {
    await update({ requiredStatuses: [] });
    h.t.forge.openPr(SLUG, { number: 1 });
    await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
    await h.t.runEffects();
    expect(json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } }))).state).toBe('MERGED');
    expect(h.t.ci.started).toEqual([]);
    const runId = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } }))).verifiedByTestRun;
    expect(json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId })))).toMatchObject({
      requiredStatuses: [],
      requiredStatusesSource: 'merge_instance',
      status: 'succeeded',
    });
  });

  it('names the field of a bad value', async () => {
    expect(errorOf(await update({ concurrency: 0 })).message).toBe(
      'Invalid request: body/concurrency must be an integer from 1 to 1000, got 0',
    );
    expect(errorOf(await update({ bisectionConcurrency: 1001 })).message).toBe(
      'Invalid request: body/bisectionConcurrency must be an integer from 1 to 1000, got 1001',
    );
    expect(errorOf(await update({ pendingFailureDepth: -1 })).message).toBe(
      'Invalid request: body/pendingFailureDepth must be >= 0',
    );
    expect(errorOf(await update({ mergeMethod: 'fast-forward' })).message).toBe(
      'Invalid request: body/mergeMethod must be one of merge_commit, squash, rebase (any letter case)',
    );
    expect(errorOf(await update({ state: 'SWITCHING_MODES' })).message).toBe(
      'Invalid request: body/state must be one of RUNNING, PAUSED, DRAINING (any letter case)',
    );
    expect(errorOf(await update({ batch: 'yes' })).message).toBe('Invalid request: body/batch must be boolean');
    expect(errorOf(await update({ enqueueingLabel: '' })).message).toBe(
      'Invalid request: body/enqueueingLabel must not be empty',
    );
  });

  it('answers 404 for a branch without a queue', async () => {
    expect(errorOf(await h.post('/v1/updateQueue', h.body({ targetBranch: 'dev', batch: true })))).toMatchObject({
      status: 404,
      code: 'QUEUE_NOT_FOUND',
    });
  });
});

describe('deleteQueue', () => {
  it('refuses with 400 while the queue holds PRs, NOT_READY ones included', async () => {
    await h.queueWithPrs(1);
    h.t.forge.openPr(SLUG, { number: 1, mergeability: 'not_mergeable' });
    await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
    const error = errorOf(await h.post('/v1/deleteQueue', h.body()));
    expect(error).toMatchObject({ status: 400, code: 'QUEUE_NOT_EMPTY' });
    expect(error.message).toContain('#1');
    expect((await h.post('/v1/getQueue', h.body())).statusCode).toBe(200);
  });

  it('answers 404 when there is no queue', async () => {
    expect(errorOf(await h.post('/v1/deleteQueue', h.body()))).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
  });
});

describe('the Terraform management marker (contract §2.10)', () => {
  const TF = { 'x-source': 'terraform' };
  /** The marker as the dashboard's endpoints answer it; listQueues and getQueueActivity must agree. */
  async function marker(targetBranch = 'main'): Promise<{ managedBy: string | null; driftSince: string | null }> {
    const activity = json(await h.post('/v1/getQueueActivity', h.body({ targetBranch })));
    const summary = json(await h.post('/v1/listQueues', {})).queues.find(
      (q: { targetBranch: string }) => q.targetBranch === targetBranch,
    );
    const found = { managedBy: activity.managedBy, driftSince: activity.driftSince };
    expect({ managedBy: summary.managedBy, driftSince: summary.driftSince }).toEqual(found);
    return found;
  }
  const now = () => new Date(h.t.clock.now()).toISOString();

  it('a queue created by Terraform is managed by it', async () => {
    expect((await h.post('/v1/createQueue', h.body(), TF)).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: null });
  });

  it('a queue created and changed by other clients is not managed and has no drift', async () => {
    await h.post('/v1/createQueue', h.body());
    expect(await marker()).toEqual({ managedBy: null, driftSince: null });
    expect((await update({ concurrency: 2, state: 'PAUSED' })).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: null, driftSince: null });
  });

  it('Terraform update → managed; a plain update → drift since then; later plain writes keep that time; Terraform again clears it', async () => {
    await h.post('/v1/createQueue', h.body());
    expect((await update({ concurrency: 2 }, TF)).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: null });
    expect((await update({ concurrency: 2 }, TF)).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: null });

    h.t.clock.advance(60_000);
    const driftedAt = now();
    expect((await update({ concurrency: 3 })).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: driftedAt });
    h.t.clock.advance(60_000);
    expect((await update({ state: 'PAUSED' })).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: driftedAt });

    expect((await update({ concurrency: 2, state: 'RUNNING' }, TF)).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: null });
  });

  it("counts Terraform's and OpenTofu's User-Agent, and X-Source, in any letter case", async () => {
    const sources: Record<string, string>[] = [
      { 'user-agent': 'Terraform/1.9.8 (+https://www.terraform.io) terraform-provider-trunk/0.4.0' },
      { 'user-agent': 'OpenTofu/1.8.3' },
      { 'User-Agent': 'go-http-client/1.1 OPENTOFU' },
      { 'X-Source': 'TERRAFORM' },
      { 'x-source': 'Terraform' },
    ];
    for (const [i, headers] of sources.entries()) {
      const branch = `tf-${i}`;
      const write = (fields: Record<string, unknown>, extra?: Record<string, string>) =>
        h.post('/v1/updateQueue', h.body({ targetBranch: branch, ...fields }), extra);
      h.t.forge.pushToBranch(SLUG, branch);
      await h.post('/v1/createQueue', h.body({ targetBranch: branch }));
      expect((await write({ concurrency: 2 }, headers)).statusCode).toBe(200);
      expect(await marker(branch), JSON.stringify(headers)).toEqual({ managedBy: 'terraform', driftSince: null });
      expect((await write({ concurrency: 3 }, { 'user-agent': 'curl/8.5.0', 'x-source': 'console' })).statusCode).toBe(
        200,
      );
      expect(await marker(branch)).toEqual({ managedBy: 'terraform', driftSince: now() });
      expect((await write({ concurrency: 2 }, headers)).statusCode).toBe(200);
      expect(await marker(branch), JSON.stringify(headers)).toEqual({ managedBy: 'terraform', driftSince: null });
    }
  });

  it('only applied config writes count: not PR submissions or cancellations, not a refused update', async () => {
    await h.queueWithPrs(1);
    const submit = () => h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }), TF);
    const cancel = () => h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } }), TF);
    expect((await submit()).statusCode).toBe(200);
    expect((await cancel()).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: null, driftSince: null });

    expect((await update({ batch: true }, TF)).statusCode).toBe(200);
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    expect((await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    expect((await update({ concurrency: 0 })).statusCode).toBe(400);
    expect((await update({})).statusCode).toBe(200);
    expect(await marker()).toEqual({ managedBy: 'terraform', driftSince: null });
  });

  it('leaves the getQueue and updateQueue answers as Terraform parses them', async () => {
    await h.post('/v1/createQueue', h.body(), TF);
    await update({ concurrency: 3 });
    expect(Object.keys(json(await update({ batch: true }))).sort()).toEqual([...SETTINGS_KEYS].sort());
    expect(Object.keys(json(await h.post('/v1/getQueue', h.body()))).sort()).toEqual(
      [...SETTINGS_KEYS, 'enqueuedPullRequests'].sort(),
    );
  });
});
