/**
 * The whole queue on the FAKE GitHub API where main's protection requires branches to be up to date
 * before merging: a tested squash batch of three good PRs ends with all three MERGED, GitHub bringing
 * each behind PR's branch up to date, and main only ever at the states the test commit was built of,
 * ending on the tested one; without batching, every state main takes is a tree CI passed. The PRs'
 * MERGED reason says what strict protection cost and which setting makes the queue faster. With
 * merge_commit and greenline allowed to bypass the rule, the batch lands as tested.
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
  for (const n of [1, 2, 3]) h.api.openPr(n, { headSha: h.api.commit(base, `pr${n}`) });
  h.api.requiredChecks.set('main', ['build']);
  h.api.strictBranches.add('main');
  h.api.checksOnUpdatedHeads.set('build', 'success');
  await h.app.service.createQueue(h.ctx, h.key, {});
});
afterEach(() => h.close());

const view = (n: number) => h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n });

/** The test commits on GitHub now: greenline's test branches by name. */
const testBranches = () => [...h.api.branches].filter(([name]) => name.startsWith('greenline-merge/'));

/** Reports `build` passed on every test commit not yet reported, until no test branch is left; the commits CI passed. */
async function passEveryRun(): Promise<string[]> {
  const passed: string[] = [];
  for (let round = 0; round < 10; round++) {
    await h.runEffects();
    const fresh = testBranches().filter(([, sha]) => !passed.includes(sha));
    if (fresh.length === 0) break;
    for (const [, sha] of fresh) {
      passed.push(sha);
      await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, sha, 'build', 'success'));
    }
  }
  return passed;
}

/** Every state main took, oldest first: its first-parent chain (strict protection allows no push). */
function mainHistory(): string[] {
  const chain: string[] = [];
  for (let sha: string | undefined = h.api.branches.get('main'); sha; sha = h.api.commits.get(sha)?.[0]) {
    chain.unshift(sha);
  }
  return chain;
}

/** The states a test commit was built of: its first-parent chain down to `base`, base excluded. */
function buildStates(testSha: string): string[] {
  const chain: string[] = [];
  for (let sha: string | undefined = testSha; sha && sha !== base; sha = h.api.commits.get(sha)?.[0]) {
    chain.unshift(h.api.treeOf(sha));
  }
  return chain;
}

async function submitAll(): Promise<void> {
  for (const n of [1, 2, 3]) await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: n });
}

describe('strict protection in the queue', () => {
  it('a squash batch of three good PRs: all three MERGED, main only at the states tested, the reason telling the cost', async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { batch: true, batchingMinSize: 3 });
    await submitAll();
    await h.runEffects();
    expect(testBranches()).toHaveLength(1);
    const passed = await passEveryRun();
    expect(passed).toHaveLength(1); // one CI run for the batch
    for (const n of [1, 2, 3]) expect((await view(n)).entry.state).toBe('MERGED');
    expect([1, 2, 3].map((n) => h.api.pulls.get(n)!.merged)).toEqual([true, true, true]);
    // PRs 2 and 3 were behind once PR 1 merged: GitHub brought them up to date, guarded by their tested heads.
    expect(h.api.log.filter((l) => l.includes('update-branch'))).toEqual([
      'PUT /repos/acme/web/pulls/2/update-branch',
      'PUT /repos/acme/web/pulls/3/update-branch',
    ]);
    // main went through the states the test commit was built of, one PR at a time, ending on the tested one.
    const history = mainHistory();
    expect(history[0]).toBe(base);
    expect(history.slice(1).map((sha) => h.api.treeOf(sha))).toEqual(buildStates(passed[0]!));
    expect(h.api.treeOf(history.at(-1)!)).toBe(h.api.treeOf(passed[0]!));
    const { reason } = await view(3);
    expect(reason).toMatchObject({
      code: 'MERGE_GRAPH_MERGE',
      detail:
        "main's branch protection requires branches to be up to date before merging (strict) and greenline merges with squash, so GitHub merged main into the branch of PRs #2, #3 (update-branch) and greenline merged the PRs one at a time, each on the tested content: each update adds a merge commit to the PR's branch and starts its checks on GitHub again. To merge a batch at once: use mergeMethod merge_commit and allow greenline's App to bypass the rule (greenline then fast-forwards main to the tested commit), or turn off 'Require branches to be up to date before merging' in main's branch protection",
    });
  });

  it('without batching, every state main takes under strict protection is a tree CI passed', async () => {
    await submitAll();
    const passed = await passEveryRun();
    for (const n of [1, 2, 3]) expect((await view(n)).entry.state).toBe('MERGED');
    const tested = new Set(passed.map((sha) => h.api.treeOf(sha)));
    const history = mainHistory();
    expect(history).toHaveLength(4);
    for (const sha of history.slice(1)) expect(tested.has(h.api.treeOf(sha))).toBe(true);
  });

  it('merge_commit with greenline allowed to bypass the rule: main is fast-forwarded to the tested commit', async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { batch: true, batchingMinSize: 3, mergeMethod: 'merge_commit' });
    h.api.protectedBranches.add('main');
    h.api.bypassProtection = true;
    await submitAll();
    const [testSha] = await passEveryRun();
    expect(h.api.branches.get('main')).toBe(testSha);
    for (const n of [1, 2, 3]) expect((await view(n)).entry.state).toBe('MERGED');
    expect(h.api.log.filter((l) => l.includes('update-branch'))).toEqual([]);
    expect(h.api.messages.get(testSha!)).toBe('Merge pull request #3 from acme/feature-3\n\nPR 3');
  });
});
