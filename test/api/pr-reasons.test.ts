/**
 * Why a PR is in its state, in words: getSubmittedPullRequest's `reason` (beside Trunk's fields),
 * the timeline's sentences and the dashboard activity's `explanation`, for failed, cancelled,
 * conflicting and waiting PRs (fake forge and CI, SQLite in memory).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, json, SLUG, type ApiHarness } from './api-harness.js';
import type { Json } from '../helpers/json.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(3);
});
afterEach(() => h.close());

const submit = (number: number) => h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
const getPr = async (number: number, extra: Record<string, unknown> = {}) => {
  const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number }, ...extra }));
  expect(res.statusCode, res.body).toBe(200);
  return json(res);
};
const activity = async () => json(await h.post('/v1/getQueueActivity', h.body()));

describe('the reason of a PR', () => {
  it('names the failed required status, its description and link, and the run whose log tells more', async () => {
    await submit(1);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    const report = await h.post('/v1/reportStatus', {
      repo: h.body().repo,
      testRunId: runId,
      context: 'greenline/ci',
      state: 'failure',
      url: 'https://ci.example.com/jobs/7',
      description: 'exited with code 1',
    });
    expect(report.statusCode, report.body).toBe(200);
    await h.t.runEffects();
    const pr = await getPr(1);
    expect(pr.state).toBe('FAILED');
    expect(pr.reason).toEqual({
      code: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      message: 'Failed: a required CI status failed.',
      detail: 'required status "greenline/ci" reported failure: exited with code 1',
      url: 'https://ci.example.com/jobs/7',
      testRunId: runId,
      at: pr.stateChangedAt,
    });
    // Trunk's fields stay as they are.
    expect(pr.readiness).toEqual({
      hasImpactedTargets: false,
      requiresImpactedTargets: false,
      doesBaseBranchMatch: true,
      gitHubMergeability: 'mergeable',
    });
  });

  it('says a PR that failed on a merge conflict is not mergeable, with the conflict in words', async () => {
    h.t.forge.state(SLUG).conflicting.add(2);
    await submit(2);
    await h.t.runEffects();
    const pr = await getPr(2, { includeTimeline: true });
    expect(pr.state).toBe('FAILED');
    expect(pr.readiness.gitHubMergeability).toBe('not_mergeable');
    expect(pr.reason).toMatchObject({
      code: 'START_TEST_RUN_MERGE_CONFLICT',
      message: 'Failed: its changes conflict with the target branch or with a PR ahead of it, so no CI ran.',
      detail: 'PR #2 conflicts with the commits before it',
    });
    expect(pr.timeline[0]).toMatchObject({ reason: 'START_TEST_RUN_MERGE_CONFLICT', message: pr.reason.message });
    expect(pr.timeline.at(-1)).toMatchObject({
      reason: 'API_REQUESTED',
      message: 'Submitted: requested through the API (greenline CLI, dashboard or another client).',
    });
  });

  it('says who cancelled a PR, and that a push cancelled one', async () => {
    await submit(1);
    await submit(2);
    await h.t.runEffects();
    expect((await h.post('/v1/cancelPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    const cancelled = await getPr(1);
    expect(cancelled.reason).toMatchObject({
      code: 'API_REQUESTED',
      message: 'Cancelled: requested through the API (greenline CLI, dashboard or another client).',
      detail: 'by API token "test"',
    });

    const head = h.t.forge.pushToPr(SLUG, 2);
    await h.t.app.poller.pollOnce();
    expect((await getPr(2)).reason).toMatchObject({
      code: 'PR_PUSHED_TO',
      message: 'Cancelled: new commits were pushed to the PR; submit it again to test its new head.',
      detail: `new head ${head}`,
    });
  });

  it('says why a PR is not ready: a conflict with the target and its files, a draft, another base branch', async () => {
    const prs = h.t.forge.state(SLUG).prs;
    Object.assign(prs.get(1)!, {
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'conflict', files: ['README.md', 'src/app.ts'] },
    });
    Object.assign(prs.get(2)!, { mergeability: 'not_mergeable', unmergeable: { cause: 'draft' } });
    Object.assign(prs.get(3)!, { baseBranch: 'develop' });
    for (const n of [1, 2, 3]) await submit(n);
    await h.t.runEffects();

    const [one, two, three] = [await getPr(1), await getPr(2), await getPr(3)];
    expect([one.state, two.state, three.state]).toEqual(['NOT_READY', 'NOT_READY', 'NOT_READY']);
    expect(one.reason).toEqual({
      code: 'CONFLICTS_WITH_TARGET',
      message:
        'Not ready: it conflicts with the target branch; merge or rebase the target branch into it, push, and submit it again.',
      detail: 'conflicting files: README.md, src/app.ts',
      at: one.stateChangedAt,
    });
    expect(two.reason).toMatchObject({ code: 'DRAFT', message: 'Not ready: it is a draft; mark it ready for review.' });
    expect(three.reason).toMatchObject({
      code: 'BASE_BRANCH_MISMATCH',
      detail: 'base branch develop, queue branch main',
    });

    // The dashboard's activity lists them, NOT_READY last, with the same words.
    const a = await activity();
    expect(a.pullRequests.map((p: Json) => [p.prNumber, p.state, p.explanation.code])).toEqual([
      [1, 'NOT_READY', 'CONFLICTS_WITH_TARGET'],
      [2, 'NOT_READY', 'DRAFT'],
      [3, 'NOT_READY', 'BASE_BRANCH_MISMATCH'],
    ]);
    expect(a.pullRequests[0].explanation).toEqual(one.reason);
  });

  it('follows the forge: the conflict resolved, the PR goes on; the waiting reason of parallel mode is the targets', async () => {
    const pr = h.t.forge.state(SLUG).prs.get(1)!;
    Object.assign(pr, { mergeability: 'not_mergeable', unmergeable: { cause: 'conflict', files: ['a.txt'] } });
    await submit(1);
    await h.t.runEffects();
    expect((await getPr(1)).reason.detail).toBe('conflicting files: a.txt');
    Object.assign(pr, { unmergeable: { cause: 'conflict', files: ['a.txt', 'b.txt'] } });
    await h.t.app.poller.pollOnce();
    expect((await getPr(1)).reason.detail).toBe('conflicting files: a.txt, b.txt');

    expect((await h.post('/v1/updateQueue', h.body({ mode: 'parallel' }))).statusCode).toBe(200);
    Object.assign(pr, { mergeability: 'mergeable', unmergeable: undefined });
    await h.t.app.poller.pollOnce();
    const waiting = await getPr(1);
    expect(waiting).toMatchObject({
      state: 'NOT_READY',
      reason: { code: 'IMPACTED_TARGETS_MISSING', detail: `none uploaded for head ${pr.headSha}` },
    });
    expect(waiting.reason.message).toMatch(/^Not ready: waiting for the impacted targets of its head/);
  });

  it('gives the recently concluded PRs of the activity their sentence', async () => {
    await submit(1);
    await h.t.runEffects();
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    const [recent] = (await activity()).recentPullRequests;
    expect(recent).toMatchObject({
      prNumber: 1,
      state: 'MERGED',
      reason: 'MERGE_GRAPH_MERGE',
      explanation: { code: 'MERGE_GRAPH_MERGE', message: 'Merged: its tests passed and the queue merged it.' },
    });
  });
});

describe('CI runs per merge in the history', () => {
  it('counts only finished runs, not the ones still in flight', async () => {
    expect((await h.post('/v1/updateQueue', h.body({ concurrency: 2 }))).statusCode).toBe(200);
    for (const n of [1, 2]) await submit(n);
    await h.t.runEffects();
    expect(h.t.ci.startedRunIds()).toHaveLength(2);
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    const { total } = json(await h.post('/v1/getQueueHistory', h.body({ hours: 1 })));
    expect(total).toMatchObject({ merged: 1, ciRuns: 1, ciRunsPerMerge: 1 });
  });

  it('does not count a run that died on a merge conflict, which ran no CI', async () => {
    h.t.forge.state(SLUG).conflicting.add(2);
    for (const n of [1, 2]) await submit(n);
    await h.t.runEffects();
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    expect((await getPr(2)).reason.code).toBe('START_TEST_RUN_MERGE_CONFLICT');
    const { total } = json(await h.post('/v1/getQueueHistory', h.body({ hours: 1 })));
    expect(total).toMatchObject({ merged: 1, failed: 1, ciRuns: 1, ciRunsPerMerge: 1 });
  });
});
