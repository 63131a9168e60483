/**
 * The github forge sends the queue's commit message templates and the PRs' own messages as the merge
 * endpoint's commit_title and commit_message, against the GitHub double; with merge_commit they make
 * it merge PR by PR instead of fast-forwarding to the tested merge commits.
 */
import { describe, expect, it } from 'vitest';
import type { CommitMessageSettings } from '../../../src/engine/commit-message.js';
import type { RunPr } from '../../../src/engine/types.js';
import { bindingFor, makeForge } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';

function repo() {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  const h1 = api.commit(base, 'one');
  const h2 = api.commit(base, 'two');
  api.openPr(1, { headSha: h1, title: 'Add one' });
  api.openPr(2, { headSha: h2, title: 'Add two' });
  const prs: RunPr[] = [
    { number: 1, headSha: h1 },
    { number: 2, headSha: h2 },
  ];
  return { api, base, prs };
}

async function land(
  api: FakeGitHubApi,
  base: string,
  prs: RunPr[],
  method: 'merge_commit' | 'squash',
  messages: CommitMessageSettings,
  ownMessages?: Map<number, string>,
) {
  const forge = makeForge(api);
  const built = await forge.createTestBranch(bindingFor(api), { branch: 'greenline-merge/t/run', baseSha: base, prs });
  if (!built.ok) throw new Error(built.detail);
  const result = await forge.advanceTarget(bindingFor(api), {
    targetBranch: 'main',
    expectedSha: base,
    testSha: built.sha,
    prs,
    method,
    messages,
    ...(ownMessages ? { ownMessages } : {}),
  });
  if (!result.ok) throw new Error(result.detail);
  return { newSha: result.newSha, testSha: built.sha };
}

/** The messages of main's commits above `base`, newest first (GitHub's merges are one commit each). */
function landed(api: FakeGitHubApi, base: string): string[] {
  const out: string[] = [];
  for (let sha = api.branches.get('main')!; sha !== base; sha = api.commits.get(sha)![0]!)
    out.push(api.messages.get(sha)!);
  return out;
}

describe('github forge: commit messages', () => {
  it('squash: titles and bodies from the templates; a PR body block wins', async () => {
    const { api, base, prs } = repo();
    api.pulls.get(1)!.body =
      'Body one.\n<!-- greenline:commit-message -->\nfix: one\n\nFrom the block.\n<!-- /greenline:commit-message -->';
    await land(api, base, prs, 'squash', {
      squashTitle: 'feat: {title} (#{number})',
      squashBody: '{headBranch}: {batch}',
    });
    const [two, one] = landed(api, base);
    expect(one).toBe('fix: one\n\nFrom the block.');
    expect(two).toBe('feat: Add two (#2)\n\nfeature-2: #1 Add one\n#2 Add two');
  });

  it('a message given with the submission wins over the templates', async () => {
    const { api, base, prs } = repo();
    await land(api, base, prs, 'squash', { squashTitle: 'x: {title}' }, new Map([[2, 'chore: given']]));
    expect(landed(api, base)[0]!.split('\n')[0]).toBe('chore: given');
  });

  it('merge_commit with a merge template merges PR by PR with it instead of fast-forwarding', async () => {
    const { api, base, prs } = repo();
    const { newSha, testSha } = await land(api, base, prs, 'merge_commit', {
      mergeTitle: 'Merge #{number} ({headBranch})',
      mergeBody: '{title}',
    });
    expect(newSha).not.toBe(testSha);
    expect(landed(api, base)).toEqual(['Merge #2 (feature-2)\n\nAdd two', 'Merge #1 (feature-1)\n\nAdd one']);
  });

  it('merge_commit with only squash templates still fast-forwards to the tested commit', async () => {
    const { api, base, prs } = repo();
    const { newSha, testSha } = await land(api, base, prs, 'merge_commit', { squashTitle: '{title}' });
    expect(newSha).toBe(testSha);
  });
});
