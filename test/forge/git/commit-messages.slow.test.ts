/**
 * The git forge writes the merge and squash commits of a queue's `commitMessages` templates and of
 * a PR's own message, on real repositories, landing the tested trees.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../../src/git/git.js';
import { createGitForge, type GitForge } from '../../../src/forge/git/index.js';
import type { CommitMessageSettings } from '../../../src/engine/commit-message.js';
import type { RunPr } from '../../../src/engine/types.js';
import { appWithLine, makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let forge: GitForge;
let pr1: RunPr;
let pr2: RunPr;

/** PR 1 on branch feature/1: a commit by Grace, then its head by Ada; PR 2: one commit by Bob whose body gives its message. */
beforeEach(async () => {
  fx = await makeGitFixture();
  forge = createGitForge({ dataDir: fx.dataDir, logger });
  const c1 = await fx.commit(fx.baseSha, { 'a.txt': 'a\n' }, 'Add a', 'Grace');
  const h1 = await fx.commit(c1, { 'src/app.txt': appWithLine(1, 'one') }, 'Change line one\n\nWhy it changed.', 'Ada');
  await fx.setRef('refs/heads/feature/1', h1);
  const h2 = await fx.commit(
    fx.baseSha,
    { 'src/app.txt': appWithLine(9, 'nine') },
    'Change line nine\n\n<!-- greenline:commit-message -->\nfix(app): line nine\n\nAs asked.\n<!-- /greenline:commit-message -->',
    'Bob',
  );
  await fx.setRef('refs/heads/feature/2', h2);
  pr1 = { number: 1, headSha: h1 };
  pr2 = { number: 2, headSha: h2 };
});
afterEach(async () => {
  await fx.cleanup();
});

const binding = () => fx.binding({ prRefPattern: 'refs/heads/feature/{n}' });
/** The whole messages of `main`'s first-parent history above the base, newest first. */
const messages = async (): Promise<string[]> =>
  (await git(['log', '-z', '--first-parent', '--format=%B', `${fx.baseSha}..main`], { cwd: fx.remote }))
    .split('\0')
    .filter(Boolean)
    .map((m) => m.trim());

async function land(method: 'merge_commit' | 'squash', settings: CommitMessageSettings): Promise<string> {
  const built = await forge.createTestBranch(binding(), { branch: 'gm/t', baseSha: fx.baseSha, prs: [pr1, pr2] });
  if (!built.ok) throw new Error(built.detail);
  const res = await forge.advanceTarget(binding(), {
    targetBranch: 'main',
    expectedSha: fx.baseSha,
    testSha: built.sha,
    prs: [pr1, pr2],
    method,
    messages: settings,
  });
  if (!res.ok) throw new Error(res.detail);
  expect(await fx.tree(res.newSha)).toBe(await fx.tree(built.sha));
  return res.newSha;
}

describe('git forge: commit messages', () => {
  it('squash commits follow the templates, with co-authors, head branch and batch; a PR body block wins', async () => {
    await land('squash', {
      squashTitle: 'feat: {title} (#{number})',
      squashBody: '{body}\n\nFrom {headBranch} by {author}, with:\n{batch}\n\n{coAuthors}',
    });
    expect(await messages()).toEqual([
      'fix(app): line nine\n\nAs asked.',
      'feat: Change line one (#1)\n\nWhy it changed.\n\nFrom feature/1 by Ada, with:\n#1 Change line one\n#2 Change line nine\n\nCo-authored-by: Grace <grace@example.com>',
    ]);
  });

  it('merge_commit with templates re-writes the tested merges with them instead of fast-forwarding', async () => {
    const newSha = await land('merge_commit', {
      mergeTitle: 'Merge #{number} from {headBranch}',
      mergeBody: '{title}',
    });
    expect(await messages()).toEqual([
      'fix(app): line nine\n\nAs asked.',
      'Merge #1 from feature/1\n\nChange line one',
    ]);
    const parents = await git(['rev-list', '--parents', '-n', '1', newSha], { cwd: fx.remote });
    expect(parents.split(' ')).toHaveLength(3);
  });

  it('a message given with the submission wins over the PR body block and the templates', async () => {
    const built = await forge.createTestBranch(binding(), { branch: 'gm/o', baseSha: fx.baseSha, prs: [pr1, pr2] });
    if (!built.ok) throw new Error(built.detail);
    const res = await forge.advanceTarget(binding(), {
      targetBranch: 'main',
      expectedSha: fx.baseSha,
      testSha: built.sha,
      prs: [pr1, pr2],
      method: 'squash',
      messages: { squashTitle: 'x: {title}' },
      ownMessages: new Map([[2, 'feat(app): nine, as given']]),
    });
    expect(res.ok).toBe(true);
    expect(await messages()).toEqual(['feat(app): nine, as given', 'x: Change line one']);
  });

  it('merge_commit without templates or PR messages fast-forwards to the tested commit', async () => {
    const plain = await fx.commit(fx.baseSha, { 'src/app.txt': appWithLine(9, 'nine') }, 'Change line nine', 'Bob');
    await fx.setRef('refs/heads/feature/2', plain);
    pr2 = { number: 2, headSha: plain };
    const built = await forge.createTestBranch(binding(), { branch: 'gm/u', baseSha: fx.baseSha, prs: [pr1, pr2] });
    if (!built.ok) throw new Error(built.detail);
    const res = await forge.advanceTarget(binding(), {
      targetBranch: 'main',
      expectedSha: fx.baseSha,
      testSha: built.sha,
      prs: [pr1, pr2],
      method: 'merge_commit',
      messages: { squashTitle: '{title}' },
    });
    expect(res).toEqual({ ok: true, newSha: built.sha });
  });
});
