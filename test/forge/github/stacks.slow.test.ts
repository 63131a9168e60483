/**
 * A three-layer GitHub stack through the whole queue on the FAKE GitHub API: each PR's base is the
 * head branch of the PR below it, so the ones above wait, saying for what, while the bottom one is
 * tested; each lands through GitHub's asynchronous merge (never the merge endpoint, which GitHub
 * refuses for a stacked PR), bottom first, and GitHub retargets the next one onto main.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createGitHubHarness, type GitHubHarness } from './github-harness.js';
import { checkRunCompleted } from './webhook-examples.js';

let h: GitHubHarness;
const heads: string[] = [];

beforeEach(async () => {
  h = await createGitHubHarness();
  const base = h.api.commit(null, 'base');
  h.api.branches.set('main', base);
  h.api.requiredChecks.set('main', ['build']);
  heads.length = 0;
  for (const position of [1, 2, 3]) {
    const head = h.api.commit(heads.at(-1) ?? base, `layer ${position}`);
    heads.push(head);
    const pr = h.api.openPr(position, { headSha: head, base: position === 1 ? 'main' : `feature-${position - 1}` });
    h.api.branches.set(pr.head.ref, head);
    pr.stack = { base: { ref: 'main', sha: base }, size: 3, position, id: 70, number: 5 };
  }
  await h.app.service.createQueue(h.ctx, h.key, {});
});
afterEach(() => h.close());

const view = (n: number) => h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n });

/** Reports `build` passed on the test commit of the run testing PR `n`, and lets the queue act on it. */
async function passTestOf(n: number): Promise<void> {
  const { entry } = await view(n);
  expect(entry.state).toBe('TESTING');
  const testSha = h.api.branches.get(`greenline-merge/pr-${n}/${entry.runId}`)!;
  await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
  await h.runEffects();
}

it('lands bottom-up, each layer through the asynchronous merge, the layers above waiting for their base', async () => {
  for (const n of [3, 2, 1]) await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: n });
  await h.runEffects();
  expect((await view(1)).entry.state).toBe('TESTING');
  for (const n of [2, 3]) {
    const { entry, reason } = await view(n);
    expect(entry.state).toBe('NOT_READY');
    expect(reason).toMatchObject({
      code: 'BASE_BRANCH_MISMATCH',
      message: "Not ready: its base branch is not the queue's branch; it waits until it is retargeted.",
      detail: `base branch feature-${n - 1}, queue branch main`,
    });
  }

  for (const n of [1, 2, 3]) {
    await passTestOf(n);
    expect((await view(n)).entry.state).toBe('MERGED');
    expect(h.api.pulls.get(n)!.merged).toBe(true);
    // GitHub retargets the layer above onto main; the poller sees it, and the layer is tested.
    await h.app.poller.pollOnce();
    await h.runEffects();
  }

  const merges = h.api.log.filter((l) => l.startsWith('PUT'));
  expect(merges).toEqual([1, 2, 3].map((n) => `PUT /repos/acme/web/pulls/${n}/merge-async`));
  // Squashed by GitHub, one commit a layer, on main in the stack's order.
  const main = h.api.branches.get('main')!;
  expect(h.api.messages.get(main)).toBe('PR 3 (#3)\n\nPR 3');
  const [second] = h.api.commits.get(main)!;
  expect(h.api.messages.get(second!)).toBe('PR 2 (#2)\n\nPR 2');
});
