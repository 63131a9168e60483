/**
 * The whole queue on the FAKE GitHub API where main's protection requires branches to be up to date
 * before merging: a tested squash batch is not half merged, and the PR blamed fails with the reason
 * naming the setting and what to change (what the API, the CLI and the dashboard show); with merge_commit and
 * greenline allowed to bypass the rule, the batch lands as tested.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitHubHarness, type GitHubHarness } from './github-harness.js';
import { checkRunCompleted } from './webhook-examples.js';

let h: GitHubHarness;
let base: string;

beforeEach(async () => {
  h = await createGitHubHarness();
  base = h.api.commit(null, 'base');
  h.api.branches.set('main', base);
  h.api.openPr(1, { headSha: h.api.commit(base, 'pr1') });
  h.api.openPr(2, { headSha: h.api.commit(base, 'pr2') });
  h.api.requiredChecks.set('main', ['build']);
  h.api.strictBranches.add('main');
  await h.app.service.createQueue(h.ctx, h.key, {});
  await h.app.service.updateQueue(h.ctx, h.key, { batch: true, batchingMinSize: 2 });
});
afterEach(() => h.close());

const view = (n: number) => h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n });

/** Submits PRs 1 and 2, tests them as one batch and reports `build` passed on the test commit. */
async function testBatchGreen(): Promise<string> {
  await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
  await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 2 });
  await h.runEffects();
  const { entry } = await view(1);
  expect(entry.state).toBe('TESTING');
  const testSha = h.api.branches.get(`greenline-merge/pr-1-2/${entry.runId}`)!;
  expect(testSha).toBeDefined();
  await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
  await h.runEffects();
  return testSha;
}

describe('strict protection in the queue', () => {
  it('squash: the batch is not half merged; the PR blamed says which setting blocks and what to change', async () => {
    await testBatchGreen();
    expect(h.api.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
    expect(h.api.branches.get('main')).toBe(base);
    expect([h.api.pulls.get(1)!.merged, h.api.pulls.get(2)!.merged]).toEqual([false, false]);
    const { entry, reason } = await view(1);
    expect(entry.state).toBe('FAILED');
    expect(reason).toMatchObject({
      code: 'MERGE_REFUSED',
      message: 'Failed: the forge refused to merge it.',
      detail:
        "main's branch protection requires branches to be up to date before merging (strict); greenline merges with squash, which GitHub then refuses for every PR after the first (#2); nothing merged: turn off 'Require branches to be up to date before merging' in main's branch protection, or use mergeMethod merge_commit and allow greenline's App to bypass the rule (greenline then fast-forwards main to the tested commit)",
    });
    // The PR's comment on GitHub says the same, in the same words.
    expect(h.api.comments.find((c) => c.issue === 1)?.body).toContain(
      "Taken out of the queue. Failed: the forge refused to merge it. main's branch protection requires branches to be up to date before merging (strict)",
    );
    // The other PR was not at fault: it is tested again on its own.
    expect((await view(2)).entry.state).toBe('TESTING');
  });

  it('merge_commit with greenline allowed to bypass the rule: main is fast-forwarded to the tested commit', async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { mergeMethod: 'merge_commit' });
    h.api.protectedBranches.add('main');
    h.api.bypassProtection = true;
    const testSha = await testBatchGreen();
    expect(h.api.branches.get('main')).toBe(testSha);
    expect((await view(1)).entry.state).toBe('MERGED');
    expect((await view(2)).entry.state).toBe('MERGED');
    expect(h.api.messages.get(testSha)).toBe('Merge pull request #2 from acme/feature-2\n\nPR 2');
  });
});
