/**
 * Neutral words inside, Trunk's words on the wire: a merge the forge refused is `MERGE_REFUSED` to the
 * engine and the store, and `GITHUB_API_MERGE_PR_FAILED` wherever Trunk's clients read it — the v1
 * PR, its timeline and the dashboard's activity, and the v2 entry history; the forge's verdict on a PR
 * is v1's `readiness.gitHubMergeability`. (The webhooks' `failure_reason`: test/webhooks/delivery.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { createApiHarness, json, SLUG, type ApiHarness } from './api-harness.js';
import { v2Client } from './v2-client.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(1);
});
afterEach(() => h.close());

/** Submits PR 1 and passes its run after taking its test commit away: the forge refuses the merge. */
async function refusedMerge(): Promise<void> {
  expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
  await h.t.runEffects();
  const [start] = h.t.ci.started;
  h.t.forge.state(SLUG).commits.delete(start!.sha);
  await h.t.ci.pass(start!.runId);
  await h.t.runEffects();
}

describe("a merge the forge refused, in Trunk's names", () => {
  it('is GITHUB_API_MERGE_PR_FAILED on v1: the reason, the timeline and the activity', async () => {
    await refusedMerge();
    const res = await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, includeTimeline: true }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain('MERGE_REFUSED');
    const pr = json(res);
    expect(pr).toMatchObject({
      state: 'FAILED',
      readiness: { gitHubMergeability: 'mergeable' },
      reason: {
        code: 'GITHUB_API_MERGE_PR_FAILED',
        message: 'Failed: the forge refused to merge it.',
        detail: 'unknown commit',
      },
    });
    expect(Object.keys(pr.readiness)).toEqual([
      'hasImpactedTargets',
      'requiresImpactedTargets',
      'doesBaseBranchMatch',
      'gitHubMergeability',
    ]);
    expect(pr.timeline[0]).toMatchObject({
      toState: 'FAILED',
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      message: 'Failed: the forge refused to merge it.',
    });

    const activity = await h.post('/v1/getQueueActivity', h.body());
    expect(activity.body).not.toContain('MERGE_REFUSED');
    expect(json(activity).recentPullRequests[0]).toMatchObject({
      prNumber: 1,
      reason: 'GITHUB_API_MERGE_PR_FAILED',
      explanation: { code: 'GITHUB_API_MERGE_PR_FAILED' },
    });
  });

  it('is GITHUB_API_MERGE_PR_FAILED in the v2 entry history', async () => {
    await refusedMerge();
    const v2 = v2Client(h);
    const [queue] = json(await v2.call('GET', '/v2/merge-queues')).data as Json[];
    const failed = json(await v2.call('GET', `/v2/merge-queues/${queue.id}/pull-requests?state=failed`)).data as Json[];
    expect(failed.map((p) => p.number)).toEqual([1]);
    const history = await v2.call('GET', `/v2/pull-requests/${failed[0].id}/queue-entry-history`);
    expect(history.statusCode, history.body).toBe(200);
    expect(history.body).not.toContain('MERGE_REFUSED');
    expect(json(history).data.at(-1)).toMatchObject({ state: 'failed', reason: 'GITHUB_API_MERGE_PR_FAILED' });
  });
});
