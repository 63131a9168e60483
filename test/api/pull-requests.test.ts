import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const ITEM_KEYS = [
  'estimatedMergeAt',
  'estimatedMergeRange',
  'id',
  'noBatch',
  'prAuthor',
  'prBaseBranch',
  'prNumber',
  'prSha',
  'prTitle',
  'position',
  'priorityName',
  'priorityValue',
  'skipTheLine',
  'state',
  'stateChangedAt',
  'waitingOn',
];

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(3);
});
afterEach(() => h.close());

const submit = (number: number | string, extra: Record<string, unknown> = {}) =>
  h.post('/v1/submitPullRequest', h.body({ pr: { number }, ...extra }));
const getPr = async (number: number) => {
  const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number } }));
  expect(res.statusCode, res.body).toBe(200);
  return json(res);
};

describe('submitPullRequest and getSubmittedPullRequest', () => {
  it('submits a PR and reports every field of it with its type', async () => {
    const res = await submit(1, { priority: 'HIGH', noBatch: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({});
    await h.t.runEffects();

    const pr = await getPr(1);
    expect(Object.keys(pr).sort()).toEqual(
      [
        ...ITEM_KEYS,
        'actions',
        'forceEnqueued',
        'headCommitUrl',
        'isCurrentlySubmittedToQueue',
        'prUrl',
        'readiness',
        'reason',
        'stack',
        'verifiedByTestRun',
      ].sort(),
    );
    const head = h.t.forge.state(SLUG).prs.get(1)!.headSha;
    expect(pr).toMatchObject({
      state: 'TESTING',
      priorityValue: 10,
      priorityName: 'high',
      skipTheLine: false,
      noBatch: true,
      prNumber: 1,
      prTitle: 'Change 1',
      prSha: head,
      prBaseBranch: 'main',
      prAuthor: 'dev',
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      verifiedByTestRun: null,
      stack: [],
      actions: { cancel: true, restartTests: true, changePriority: true, submitAgain: false },
      readiness: {
        hasImpactedTargets: false,
        requiresImpactedTargets: false,
        doesBaseBranchMatch: true,
        gitHubMergeability: 'mergeable',
      },
    });
    expect(typeof pr.id).toBe('string');
    expect(pr.stateChangedAt).toMatch(ISO);
    expect(Date.parse(pr.stateChangedAt)).toBe(h.t.clock.now());
  });

  it('takes pr.number as a decimal string and reports the default priority it applied', async () => {
    expect((await submit('2')).statusCode).toBe(200);
    const pr = await getPr(2);
    expect(pr).toMatchObject({
      prNumber: 2,
      priorityName: 'medium',
      priorityValue: 100,
      usedDefaultPriorityName: 'medium',
    });
  });

  it('takes priorities as numbers, decimal strings and names in any case', async () => {
    expect((await submit(1, { priority: 'Urgent' })).statusCode).toBe(200);
    expect((await submit(2, { priority: '200' })).statusCode).toBe(200);
    expect((await submit(3, { priority: 42 })).statusCode).toBe(200);
    expect(await getPr(1)).toMatchObject({ priorityValue: 0, skipTheLine: true });
    expect(await getPr(2)).toMatchObject({ priorityValue: 200 });
    expect(await getPr(3)).toMatchObject({ priorityValue: 42 });
  });

  it('reports verifiedByTestRun and isCurrentlySubmittedToQueue once the PR merged', async () => {
    await submit(1);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    await h.t.ci.pass(runId!);
    await h.t.runEffects();
    expect(await getPr(1)).toMatchObject({
      state: 'MERGED',
      verifiedByTestRun: runId,
      isCurrentlySubmittedToQueue: false,
    });
  });

  it('returns the timeline with reasons, newest first, only with includeTimeline', async () => {
    await submit(1);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    await h.t.ci.fail(runId!);
    await h.t.runEffects();
    expect(await getPr(1)).not.toHaveProperty('timeline');
    const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, includeTimeline: true }));
    expect(res.statusCode, res.body).toBe(200);
    const { state, timeline } = json(res);
    expect(state).toBe('FAILED');
    expect(
      timeline.map((t: { fromState: string | null; toState: string; reason: string }) => [
        t.fromState,
        t.toState,
        t.reason,
      ]),
    ).toEqual([
      ['PENDING_FAILURE', 'FAILED', 'TEST_RUN_REQUIRED_STATUS_FAILED'],
      ['TESTING', 'PENDING_FAILURE', 'TEST_RUN_REQUIRED_STATUS_FAILED'],
      ['PENDING', 'TESTING', 'TEST_RUN_STARTED'],
      ['NOT_READY', 'PENDING', 'MERGE_ITEM_NOW_READY'],
      [null, 'NOT_READY', 'API_REQUESTED'],
    ]);
    expect(timeline[0]).toMatchObject({ testRunId: runId });
    expect(timeline[0].at).toMatch(ISO);
    const bad = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, includeTimeline: 'yes' }));
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toMatch(/includeTimeline/);
  });

  it('serves the legacy name queuePullRequest with the same body', async () => {
    const res = await h.post('/v1/queuePullRequest', h.body({ pr: { number: 3 } }));
    expect(res.statusCode, res.body).toBe(200);
    expect(await getPr(3)).toMatchObject({ prNumber: 3, isCurrentlySubmittedToQueue: true });
  });

  it("takes and ignores getSubmittedPullRequest's legacy priority; refuses a field it does not know", async () => {
    await submit(1);
    const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, priority: 'low' }));
    expect(res.statusCode).toBe(200);
    expect(json(res).priorityName).toBe('medium');
    expect(
      errorOf(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, clientVersion: 3 }))),
    ).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message:
        'Invalid request: body/clientVersion is not a field of body; its fields are repo, targetBranch, pr, includeTimeline, priority',
    });
  });

  it('answers 404 for a PR never submitted to the queue, and for a PR the forge does not have', async () => {
    expect(errorOf(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 2 } })))).toMatchObject({
      status: 404,
      code: 'PR_NOT_SUBMITTED',
    });
    expect(errorOf(await submit(99))).toMatchObject({ status: 404, code: 'PR_NOT_FOUND' });
  });

  it('finds a PR by its head branch', async () => {
    h.t.forge.openPr(SLUG, { number: 2, headBranch: 'feature/search' });
    await submit(2);
    const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { branch: 'feature/search' } }));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ prNumber: 2, isCurrentlySubmittedToQueue: true });
    expect(
      errorOf(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { branch: 'feature/other' } }))),
    ).toMatchObject({ status: 404, code: 'PR_NOT_SUBMITTED' });
  });

  it("shows a PR's stack: the queued PRs chained by their branches, bottom first", async () => {
    h.t.forge.openPr(SLUG, { number: 2, headBranch: 'layer-1' });
    h.t.forge.openPr(SLUG, { number: 3, headBranch: 'layer-2', baseBranch: 'layer-1' });
    h.t.forge.openPr(SLUG, { number: 4, headBranch: 'layer-3', baseBranch: 'layer-2' });
    for (const n of [4, 1, 2, 3]) await submit(n);
    await h.t.runEffects();
    for (const n of [2, 3, 4]) expect((await getPr(n)).stack).toEqual([2, 3, 4]);
    expect((await getPr(3)).readiness.doesBaseBranchMatch).toBe(false);
    expect((await getPr(1)).stack).toEqual([]);
  });

  it('needs pr.number or pr.branch to find a PR', async () => {
    expect(errorOf(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: {} })))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: body/pr must have number or branch',
    });
  });
});

describe('cancelPullRequest and restartTestsOnPullRequest', () => {
  it('cancels a PR in the queue', async () => {
    await submit(1);
    await h.t.runEffects();
    const res = await h.post('/v1/cancelPullRequest', h.body({ pr: { number: '1' } }));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({});
    expect(await getPr(1)).toMatchObject({
      state: 'CANCELLED',
      isCurrentlySubmittedToQueue: false,
      actions: { cancel: false, restartTests: false, changePriority: false, submitAgain: true },
    });
    // What actions says is refused is refused.
    expect(errorOf(await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } })))).toMatchObject({
      status: 400,
      code: 'PR_NOT_IN_QUEUE',
    });
  });

  it('refuses to cancel or restart a PR that is not in the queue', async () => {
    expect(errorOf(await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 2 } })))).toMatchObject({
      status: 400,
      code: 'PR_NOT_IN_QUEUE',
    });
    expect(errorOf(await h.post('/v1/restartTestsOnPullRequest', h.body({ pr: { number: 2 } })))).toMatchObject({
      status: 400,
      code: 'PR_NOT_IN_QUEUE',
    });
  });

  it('refuses to restart a PR that is not testing yet, as its actions say', async () => {
    await submit(1);
    expect(await getPr(1)).toMatchObject({
      state: 'PENDING',
      actions: { cancel: true, restartTests: false, changePriority: true, submitAgain: false },
    });
    expect(errorOf(await h.post('/v1/restartTestsOnPullRequest', h.body({ pr: { number: 1 } })))).toMatchObject({
      status: 400,
      code: 'RESTART_NOT_ALLOWED',
    });
  });

  it('restarts the tests of a testing PR with a new test run', async () => {
    await submit(1);
    await h.t.runEffects();
    const res = await h.post('/v1/restartTestsOnPullRequest', h.body({ pr: { number: 1 } }));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({});
    await h.t.runEffects();
    const runs = h.t.ci.startedRunIds();
    expect(runs).toHaveLength(2);
    expect(runs[0]).not.toBe(runs[1]);
    expect(await getPr(1)).toMatchObject({ state: 'TESTING' });
  });
});

describe('listPullRequests', () => {
  it('pages through the PRs with nextCursor, items without readiness', async () => {
    for (const n of [1, 2, 3]) await submit(n);
    const first = await h.post('/v1/listPullRequests', h.body({ take: 2 }));
    expect(first.statusCode, first.body).toBe(200);
    const page1 = json(first);
    expect(page1.pullRequests).toHaveLength(2);
    expect(Object.keys(page1.pullRequests[0]).sort()).toEqual([...ITEM_KEYS, 'usedDefaultPriorityName'].sort());
    expect(typeof page1.nextCursor).toBe('string');

    const page2 = json(await h.post('/v1/listPullRequests', h.body({ take: 2, cursor: page1.nextCursor })));
    expect(page2.pullRequests).toHaveLength(1);
    expect(page2).not.toHaveProperty('nextCursor');
    const numbers = [...page1.pullRequests, ...page2.pullRequests].map((p: { prNumber: number }) => p.prNumber);
    expect(numbers.sort()).toEqual([1, 2, 3]);
  });

  it('filters by a state given in any case', async () => {
    for (const n of [1, 2]) await submit(n);
    await h.t.runEffects();
    const testing = json(await h.post('/v1/listPullRequests', h.body({ state: 'testing' })));
    expect(testing.pullRequests.map((p: { prNumber: number; state: string }) => [p.prNumber, p.state])).toEqual([
      [1, 'TESTING'],
    ]);
  });

  it('keeps the PRs that concluded within since and until, both ends included', async () => {
    for (const n of [1, 2, 3]) await submit(n);
    const at: string[] = [];
    for (const n of [1, 2]) {
      h.t.clock.advance(60_000);
      at.push(new Date(h.t.clock.now()).toISOString());
      await h.post('/v1/cancelPullRequest', h.body({ pr: { number: n } }));
    }
    const numbers = async (window: Record<string, string>) =>
      json(await h.post('/v1/listPullRequests', h.body(window))).pullRequests.map(
        (p: { prNumber: number }) => p.prNumber,
      );
    expect(await numbers({ since: at[0]! })).toEqual([2, 1]);
    expect(await numbers({ until: at[0]! })).toEqual([1]);
    expect(await numbers({ since: at[1]!, until: at[1]! })).toEqual([2]);
    expect(await numbers({ since: at[0]!, until: at[1]! })).toEqual([2, 1]);
    expect(errorOf(await h.post('/v1/listPullRequests', h.body({ until: 'tomorrow' }))).message).toBe(
      'Invalid request: body/until must be an ISO-8601 date-time such as 2026-01-31T12:00:00Z',
    );
  });

  it('validates take and since', async () => {
    expect(errorOf(await h.post('/v1/listPullRequests', h.body({ take: 101 })))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: body/take must be <= 100',
    });
    expect(errorOf(await h.post('/v1/listPullRequests', h.body({ since: 'yesterday' }))).message).toBe(
      'Invalid request: body/since must be an ISO-8601 date-time such as 2026-01-31T12:00:00Z',
    );
  });
});

describe('setImpactedTargets and getMergeQueueTestingDetails', () => {
  it("accepts merge-action's call: string pr.number, a token and a run id, empty names dropped", async () => {
    const sha = h.t.forge.state(SLUG).prs.get(1)!.headSha;
    // merge-action always sends the run id header too; with a token present it is not used.
    const res = await h.post(
      '/v1/setImpactedTargets',
      h.body({ pr: { number: '1', sha }, impactedTargets: ['//web', '', '//api'] }),
      { 'x-forked-workflow-run-id': '9876543210' },
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({});

    await submit(1);
    await h.t.runEffects();
    expect((await getPr(1)).readiness.hasImpactedTargets).toBe(true);
    const [runId] = h.t.ci.startedRunIds();
    const details = json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId })));
    expect(details.impactedTargets).toEqual(['//web', '//api']);
    expect(details.impactedTargetsForTestedPrs).toEqual(['//web', '//api']);
  });

  it('accepts "ALL" and the legacy "IMPACTS_ALL" in any case', async () => {
    const sha = h.t.forge.state(SLUG).prs.get(2)!.headSha;
    for (const all of ['ALL', 'impacts_all']) {
      const res = await h.post('/v1/setImpactedTargets', h.body({ pr: { number: 2, sha }, impactedTargets: all }));
      expect(res.statusCode, res.body).toBe(200);
    }
    await submit(2);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    expect(json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId }))).impactedTargets).toEqual(
      ['ALL'],
    );
  });

  it('requires pr.sha, a full commit sha', async () => {
    expect(
      errorOf(await h.post('/v1/setImpactedTargets', h.body({ pr: { number: 1 }, impactedTargets: [] }))).message,
    ).toBe('Invalid request: body/pr/sha is required');
    expect(
      errorOf(await h.post('/v1/setImpactedTargets', h.body({ pr: { number: 1, sha: 'abc123' }, impactedTargets: [] })))
        .message,
    ).toBe('Invalid request: body/pr/sha must be a full commit sha (40 or 64 hexadecimal digits)');
  });

  it('reports every field of a test run', async () => {
    await submit(1);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    await h.t.ci.report(runId!, 'pending');
    const res = await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId }));
    expect(res.statusCode, res.body).toBe(200);
    const d = json(res);
    expect(Object.keys(d).sort()).toEqual([
      'baseSha',
      'changedFiles',
      'checkSuites',
      'createdAt',
      'dependentPrs',
      'requiredStatuses',
      'requiredStatusesSource',
      'status',
      'statusChecks',
      'testBranch',
      'testBranchSha',
      'testCommitUrl',
      'testedPullRequests',
    ]);
    expect(d.requiredStatuses.every((s: unknown) => typeof s === 'string')).toBe(true);
    expect(['trunk_config', 'repo_provider_branch_protection', 'merge_instance']).toContain(d.requiredStatusesSource);
    expect(d.testBranch).toContain(runId);
    expect(d.testBranchSha).toBe(h.t.forge.state(SLUG).branches.get(d.testBranch));
    expect(d.createdAt).toMatch(ISO);
    expect(d.status).toBe('in_progress');
    expect(d.checkSuites).toEqual([]);
    expect(d.statusChecks).toEqual([{ context: 'greenline/ci', state: 'PENDING' }]);
    expect(d.testedPullRequests).toEqual([
      { prNumber: 1, prUrl: 'https://github.com/acme/web/pull/1', title: 'Change 1' },
    ]);
    expect(d.dependentPrs).toEqual([]);
    // A plain git forge shows no commits: no address rather than a broken one.
    expect(d.testCommitUrl).toBeNull();
    // This forge cannot compare commits: what the run changed is not known.
    expect([d.baseSha, d.changedFiles]).toEqual([null, null]);
  });

  it("links the test commit of a GitHub repository's run in GitHub's form", async () => {
    const slug = 'github.com/acme/app';
    const key = { repo: { host: 'github.com', owner: 'acme', name: 'app' }, targetBranch: 'main' };
    await h.t.connectRepo('acme', slug, { forge: 'github' });
    expect((await h.post('/v1/createQueue', key)).statusCode).toBe(200);
    h.t.forge.openPr(slug, { number: 1, title: 'Change 1', author: 'dev' });
    expect((await h.post('/v1/submitPullRequest', { ...key, pr: { number: 1 } })).statusCode).toBe(200);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds().slice(-1);
    const d = json(await h.post('/v1/getMergeQueueTestingDetails', { ...key, testRunId: runId }));
    expect(d.testBranchSha).toMatch(/^[0-9a-f]{40}$/);
    expect(d.testCommitUrl).toBe(`https://github.com/acme/app/commit/${d.testBranchSha}`);
  });

  it('answers 404 for an unknown test run', async () => {
    expect(
      errorOf(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: 'no-such-run' }))),
    ).toMatchObject({ status: 404, code: 'TEST_RUN_NOT_FOUND' });
  });
});

describe('a repository of another organization', () => {
  it('looks like a repository that does not exist', async () => {
    const other = await h.t.createOrg('globex');
    const res = await h.post('/v1/getQueue', { repo: REPO, targetBranch: 'main' }, { 'x-api-token': other.token });
    expect(errorOf(res)).toMatchObject({ status: 404, code: 'REPO_NOT_FOUND' });
  });
});
