import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_CONFIG } from '../../src/engine/config.js';
import { createApiHarness, errorOf, json, SLUG, type ApiHarness } from './api-harness.js';

const SETTINGS_KEYS = [
  'state', 'branch', 'mode', 'concurrency', 'testingTimeoutMinutes', 'canOptimisticallyMerge', 'pendingFailureDepth',
  'batch', 'batchingMaxWaitTimeMinutes', 'batchingMinSize', 'createPrsForTestingBranches', 'commentsEnabled',
  'commandsEnabled', 'statusCheckEnabled', 'bisectionConcurrency', 'requiredStatuses', 'directMergeMode',
  'optimizationMode', 'mergeMethod', 'extensionEnabled', 'enqueueingLabel', 'labelCommandsEnabled',
  'stateLabelsEnabled', 'notReadyTimeoutHours', 'testBranchConstructionMode',
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
      ...defaults, state: 'RUNNING', branch: 'main', concurrency: 2, bisectionConcurrency: 2, enqueuedPullRequests: [],
    });

    const change = {
      concurrency: 3, testingTimeoutMinutes: 60, pendingFailureDepth: 0, canOptimisticallyMerge: true, batch: true,
      batchingMaxWaitTimeMinutes: 10, batchingMinSize: 2, mergeMethod: 'merge_commit', commentsEnabled: false,
      commandsEnabled: true, createPrsForTestingBranches: false, statusCheckEnabled: true, directMergeMode: 'off',
      optimizationMode: 'bisection_skip_redundant_tests', bisectionConcurrency: 4, requiredStatuses: ['build', 'test'],
    };
    const first = await update(change, { 'x-source': 'terraform' });
    expect(first.statusCode, first.body).toBe(200);
    const second = await update(change, { 'x-source': 'terraform' });
    expect(second.statusCode).toBe(200);
    expect(json(second)).toEqual(json(first));
    expect(Object.keys(json(first)).sort()).toEqual([...SETTINGS_KEYS].sort());
    expect(json(first)).toMatchObject({ ...change, state: 'RUNNING', branch: 'main', mode: 'single' });

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
      status: 409, code: 'QUEUE_EXISTS', message: 'A merge queue already exists for branch "main" in this repository',
    });
  });

  it('takes mode in any case', async () => {
    expect((await h.post('/v1/createQueue', h.body({ mode: 'PARALLEL' }))).statusCode).toBe(200);
    expect(json(await h.post('/v1/getQueue', h.body())).mode).toBe('parallel');
  });

  it('refuses the settings that only updateQueue sets, instead of dropping them', async () => {
    expect(errorOf(await h.post('/v1/createQueue', h.body({ batch: true })))).toEqual({
      status: 400, code: 'VALIDATION_FAILED',
      message: 'Invalid request: body/batch cannot be set by createQueue; create the queue, then set it with updateQueue',
    });
    expect(errorOf(await h.post('/v1/getQueue', h.body())).status).toBe(404);
  });

  it('validates concurrency', async () => {
    expect(errorOf(await h.post('/v1/createQueue', h.body({ concurrency: 0 }))).message)
      .toBe('Invalid request: body/concurrency must be >= 1');
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
    expect(queue.enqueuedPullRequests.map((p: { prNumber: number; state: string }) => [p.prNumber, p.state]))
      .toEqual([[1, 'TESTING'], [4, 'PENDING'], [3, 'PENDING']]);
    expect(Object.keys(queue.enqueuedPullRequests[1]).sort()).toEqual([
      'id', 'noBatch', 'prAuthor', 'prBaseBranch', 'prNumber', 'prSha', 'prTitle', 'priorityName', 'priorityValue',
      'skipTheLine', 'state', 'stateChangedAt',
    ]);
  });

  it('answers 404 when the branch has no queue', async () => {
    expect(errorOf(await h.post('/v1/getQueue', h.body({ targetBranch: 'release' })))).toMatchObject({
      status: 404, code: 'QUEUE_NOT_FOUND',
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
    const res = json(await update({ state: 'Paused', mergeMethod: 'MERGE_COMMIT', directMergeMode: 'ALWAYS', mode: 'Parallel' }));
    expect(res).toMatchObject({ state: 'PAUSED', mergeMethod: 'merge_commit', directMergeMode: 'always', mode: 'parallel' });
    expect(json(await update({ state: 'draining' })).state).toBe('DRAINING');
  });

  it('maps the legacy names onto the current settings', async () => {
    const res = json(await update({ testingTimeoutMins: 45, isBatching: true, batchingMaxWaitTimeMins: 7 }));
    expect(res).toMatchObject({ testingTimeoutMinutes: 45, batch: true, batchingMaxWaitTimeMinutes: 7 });
    expect(json(await update({ batchingMode: 'none' })).batch).toBe(false);
    expect(json(await update({ batchingMode: 'SPECULATIVE' })).batch).toBe(true);
  });

  it('refuses a legacy name that disagrees with the current one', async () => {
    expect(errorOf(await update({ batch: true, isBatching: false })).message)
      .toBe('Invalid request: body/isBatching disagrees with body/batch; send only batch');
  });

  it('keeps the requiredStatuses override on [] and null, and removes it with deleteRequiredStatuses', async () => {
    expect(json(await update({ requiredStatuses: ['ci/build'] })).requiredStatuses).toEqual(['ci/build']);
    expect(json(await update({ requiredStatuses: [] })).requiredStatuses).toEqual(['ci/build']);
    expect(json(await update({ requiredStatuses: null })).requiredStatuses).toEqual(['ci/build']);
    expect(json(await update({ deleteRequiredStatuses: true })).requiredStatuses).toBeNull();
  });

  it('names the field of a bad value', async () => {
    expect(errorOf(await update({ concurrency: 0 })).message).toBe('Invalid request: body/concurrency must be >= 1');
    expect(errorOf(await update({ pendingFailureDepth: -1 })).message).toBe('Invalid request: body/pendingFailureDepth must be >= 0');
    expect(errorOf(await update({ mergeMethod: 'fast-forward' })).message)
      .toBe('Invalid request: body/mergeMethod must be one of merge_commit, squash, rebase (any letter case)');
    expect(errorOf(await update({ state: 'SWITCHING_MODES' })).message)
      .toBe('Invalid request: body/state must be one of RUNNING, PAUSED, DRAINING (any letter case)');
    expect(errorOf(await update({ batch: 'yes' })).message).toBe('Invalid request: body/batch must be boolean');
    expect(errorOf(await update({ enqueueingLabel: '' })).message).toBe('Invalid request: body/enqueueingLabel must not be empty');
  });

  it('answers 404 for a branch without a queue', async () => {
    expect(errorOf(await h.post('/v1/updateQueue', h.body({ targetBranch: 'dev', batch: true })))).toMatchObject({
      status: 404, code: 'QUEUE_NOT_FOUND',
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
