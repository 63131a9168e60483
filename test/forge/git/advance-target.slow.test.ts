import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../../src/git/git.js';
import type { GitForge } from '../../../src/forge/git/index.js';
import { createGitForge } from '../../../src/forge/git/index.js';
import type { RunPr } from '../../../src/engine/types.js';
import { appWithLine, makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let forge: GitForge;
let h1: string;
let h2: string;

/** PR 1: two commits by Ada (add a.txt, then change line 1); PR 2: one commit by Bob (line 9). */
beforeEach(async () => {
  fx = await makeGitFixture();
  forge = createGitForge({ dataDir: fx.dataDir, logger });
  const c1 = await fx.commit(fx.baseSha, { 'a.txt': 'a\n' }, 'Add a', 'Ada');
  h1 = await fx.commit(c1, { 'src/app.txt': appWithLine(1, 'one') }, 'Change line one\n\nWith a body.', 'Ada');
  await fx.setRef('refs/pull/1/head', h1);
  h2 = await fx.openPr(2, { 'src/app.txt': appWithLine(9, 'nine') }, { title: 'Change line nine', author: 'Bob' });
});
afterEach(async () => {
  await fx.cleanup();
});

const build = async (branch: string, prs: RunPr[], baseSha = fx.baseSha): Promise<string> => {
  const res = await forge.createTestBranch(fx.binding(), { branch, baseSha, prs });
  if (!res.ok) throw new Error(res.detail);
  return res.sha;
};
const pr1 = (): RunPr => ({ number: 1, headSha: h1 });
const pr2 = (): RunPr => ({ number: 2, headSha: h2 });
const parents = (line: string): number => line.split(' | ')[0].trim().split(' ').length - 1;
type Method = Parameters<GitForge['advanceTarget']>[1]['method'];
/** Advances `main` from `expectedSha` (default: the base) to the tested commit `testSha` of `prs`. */
const advance = (testSha: string, prs: RunPr[], method: Method, expectedSha = fx.baseSha) =>
  forge.advanceTarget(fx.binding(), { targetBranch: 'main', expectedSha, testSha, prs, method });
/** An advance that must succeed: the sha `main` moved to. */
const advanced = async (...args: Parameters<typeof advance>): Promise<string> => {
  const res = await advance(...args);
  if (!res.ok) throw new Error(res.detail);
  return res.newSha;
};

describe('git forge: advanceTarget', () => {
  it('merge_commit fast-forwards the target to the tested commit', async () => {
    const testSha = await build('gm/pr-1-2/a', [pr1(), pr2()]);
    const res = await advance(testSha, [pr1(), pr2()], 'merge_commit');
    expect(res).toEqual({ ok: true, newSha: testSha });
    expect(await fx.refSha('refs/heads/main')).toBe(testSha);
    expect((await fx.log('main', ['--first-parent'])).map((l) => l.split(' | ')[1])).toEqual([
      'Merge pull request #2: Change line nine',
      'Merge pull request #1: Change line one',
      'Initial commit',
    ]);
  });

  it('merge_commit of a predicted run fast-forwards over the prefix merged before it', async () => {
    const runB = await build('gm/pr-2/b', [pr1(), pr2()]);
    const runA = await build('gm/pr-1/a', [pr1()]);
    await advanced(runA, [pr1()], 'merge_commit');
    const res = await advance(runB, [pr2()], 'merge_commit', runA);
    expect(res).toEqual({ ok: true, newSha: runB });
  });

  it('squash writes one commit per PR with the tested trees, the PR title and author', async () => {
    const testSha = await build('gm/pr-1-2/s', [pr1(), pr2()]);
    const merged = await advanced(testSha, [pr1(), pr2()], 'squash');
    expect(await fx.refSha('refs/heads/main')).toBe(merged);
    expect(await fx.tree(merged)).toBe(await fx.tree(testSha));
    const log = await fx.log('main');
    expect(log.map((l) => l.split(' | ').slice(1).join(' | '))).toEqual([
      'Change line nine (#2) | Bob',
      'Change line one (#1) | Ada',
      'Initial commit | Dev One',
    ]);
    expect(log.map(parents)).toEqual([1, 1, 0]);
    // The first squash commit holds the tree the chain had after PR 1.
    expect(await fx.tree(`${merged}~1`)).toBe(await fx.tree(`${testSha}~1`));
  });

  it('squash of a predicted run stacks on the squash commit of the PR before it', async () => {
    const runB = await build('gm/pr-2/b', [pr1(), pr2()]);
    const runA = await build('gm/pr-1/a', [pr1()]);
    const a = await advanced(runA, [pr1()], 'squash');
    const b = await advanced(runB, [pr2()], 'squash', a);
    expect(await fx.tree(b)).toBe(await fx.tree(runB));
    expect((await fx.log('main')).map((l) => l.split(' ')[0]).slice(1, 2)).toEqual([a]);
  });

  it('merge_commit after squashed predecessors re-parents the tested merges onto the target', async () => {
    const runB = await build('gm/pr-2/b', [pr1(), pr2()]);
    const runA = await build('gm/pr-1/a', [pr1()]);
    const a = await advanced(runA, [pr1()], 'squash');
    const b = await advanced(runB, [pr2()], 'merge_commit', a);
    expect(await fx.tree(b)).toBe(await fx.tree(runB));
    expect((await fx.log(b, ['-1']))[0]).toMatch(new RegExp(`^${b} ${a} ${h2} \\| Merge pull request #2`));
  });

  it('rebase replays each PR commit with its author and message, linear, ending on the tested tree', async () => {
    const testSha = await build('gm/pr-1-2/r', [pr1(), pr2()]);
    const merged = await advanced(testSha, [pr1(), pr2()], 'rebase');
    expect(await fx.tree(merged)).toBe(await fx.tree(testSha));
    const log = await fx.log('main');
    expect(log.map((l) => l.split(' | ').slice(1).join(' | '))).toEqual([
      'Change line nine | Bob',
      'Change line one | Ada',
      'Add a | Ada',
      'Initial commit | Dev One',
    ]);
    expect(log.map(parents)).toEqual([1, 1, 1, 0]);
    const message = (rev: string): Promise<string> => git(['log', '-1', '--format=%B', rev], { cwd: fx.remote });
    expect(await message(`${merged}~1`)).toBe(await message(h1));
    expect(await message(h1)).toMatch(/^Change line one\n\nWith a body\.\n/);
  });

  it('rebase fails, merging nothing, when a PR commit no longer applies on its own', async () => {
    // The PR changed line 3, then merged main (which changed line 3 too) resolving the conflict.
    const { mainMove, prCommit, res } = await rebasePrThatMergedMain({
      main: { 'src/app.txt': appWithLine(3, 'main') },
      pr: { 'src/app.txt': appWithLine(3, 'pr') },
      merge: { 'src/app.txt': appWithLine(3, 'resolved') },
    });
    expect(res).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: `cannot rebase PR #4: commit ${prCommit.slice(0, 7)} conflicts in src/app.txt; nothing merged`,
    });
    expect(await fx.refSha('refs/heads/main')).toBe(mainMove);
  });

  it('rebase fails when replaying the commits does not reproduce the tested tree', async () => {
    // An "evil" merge: the PR's merge commit carries a change of its own (b.txt).
    const { mainMove, res } = await rebasePrThatMergedMain({
      main: { 'm.txt': 'm\n' },
      pr: { 'c.txt': 'c\n' },
      merge: { 'm.txt': 'm\n', 'b.txt': 'b\n' },
    });
    expect(res).toMatchObject({ ok: false, reason: 'MERGE_REFUSED' });
    expect(res.ok ? '' : res.detail).toMatch(/rebasing PR #4 does not reproduce the tested content/);
    expect(await fx.refSha('refs/heads/main')).toBe(mainMove);
  });

  it('loses the compare-and-swap when the target moved: TARGET_MOVED, remote untouched', async () => {
    const testSha = await build('gm/pr-1/m', [pr1()]);
    const outside = await fx.commit(fx.baseSha, { 'hotfix.txt': 'x\n' }, 'hotfix');
    await fx.setRef('refs/heads/main', outside);
    for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
      const res = await advance(testSha, [pr1()], method);
      expect(res).toEqual({
        ok: false,
        reason: 'TARGET_MOVED',
        detail: `main is at ${outside.slice(0, 7)}, not at ${fx.baseSha.slice(0, 7)}; nothing merged`,
      });
      expect(await fx.refSha('refs/heads/main')).toBe(outside);
    }
  });

  it('loses the compare-and-swap when the target moves during the push', async () => {
    const testSha = await build('gm/pr-1/race', [pr1()]);
    const outside = await fx.commit(fx.baseSha, { 'race.txt': 'x\n' }, 'pushed meanwhile');
    // The remote moves main while receiving our push, after our lease was checked.
    await hook(fx, 'pre-receive', `env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main ${outside}`);
    const res = await advance(testSha, [pr1()], 'merge_commit');
    expect(res).toMatchObject({ ok: false, reason: 'TARGET_MOVED' });
    expect(await fx.refSha('refs/heads/main')).toBe(outside);
  });

  it('reports a push the remote refuses (hook) as a failed merge, nothing merged', async () => {
    const testSha = await build('gm/pr-1/h', [pr1()]);
    await hook(fx, 'pre-receive', 'echo "main is protected" >&2; exit 1');
    const res = await advance(testSha, [pr1()], 'merge_commit');
    expect(res).toEqual({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: 'the remote refused to update main: [remote rejected] (pre-receive hook declined); nothing merged',
    });
    expect(await fx.refSha('refs/heads/main')).toBe(fx.baseSha);
  });

  it('refuses with PR_UPDATED_AT_MERGE_TIME when a PR moved or vanished since it was tested', async () => {
    const testSha = await build('gm/pr-1-2/u', [pr1(), pr2()]);
    const pushed = await fx.commit(h2, { 'more.txt': 'more\n' }, 'one more');
    await fx.setRef('refs/pull/2/head', pushed);
    await git(['update-ref', '-d', 'refs/pull/1/head'], { cwd: fx.remote });
    const res = await advance(testSha, [pr1(), pr2()], 'squash');
    expect(res).toEqual({
      ok: false,
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      detail: `PR #1 is gone, not at the tested ${h1.slice(0, 7)}; PR #2 is at ${pushed.slice(0, 7)}, not at the tested ${h2.slice(0, 7)}; nothing merged`,
    });
    expect(await fx.refSha('refs/heads/main')).toBe(fx.baseSha);
  });

  it('is idempotent: repeating a merge that was pushed succeeds with the same sha', async () => {
    const testSha = await build('gm/pr-1/i', [pr1()]);
    const req = { targetBranch: 'main', expectedSha: fx.baseSha, testSha, prs: [pr1()], method: 'rebase' as const };
    const first = await forge.advanceTarget(fx.binding(), req);
    const other = createGitForge({ dataDir: path.join(fx.root, 'other'), logger });
    expect(await other.advanceTarget(fx.binding(), req)).toEqual(first);
    expect(first.ok).toBe(true);
  });

  it('is idempotent after the target moved on: a merge the target already holds is success, for every method', async () => {
    for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
      await fx.setRef('refs/heads/main', fx.baseSha);
      const testSha = await build(`gm/pr-1/again-${method}`, [pr1()]);
      const req = { targetBranch: 'main', expectedSha: fx.baseSha, testSha, prs: [pr1()], method };
      const first = await forge.advanceTarget(fx.binding(), req);
      if (!first.ok) throw new Error(first.detail);
      // Someone pushes on top before the merge was recorded (the instance died after its push).
      const later = await fx.commit(first.newSha, { 'later.txt': `${method}\n` }, 'pushed after the merge');
      await fx.setRef('refs/heads/main', later);
      const other = createGitForge({ dataDir: path.join(fx.root, `other-${method}`), logger });
      expect(await other.advanceTarget(fx.binding(), req)).toEqual(first);
      expect(await forge.advanceTarget(fx.binding(), req)).toEqual(first);
      expect(await fx.refSha('refs/heads/main')).toBe(later);
    }
  });

  it('rejects a tested commit that does not end with the merges of the given PRs', async () => {
    const testSha = await build('gm/pr-1/w', [pr1()]);
    await expect(advance(testSha, [pr2()], 'squash')).rejects.toThrow(/does not end with the merges of #2@/);
  });
});

/**
 * PR 4 merged a moved `main` into itself: `main` moves to a commit setting `files.main`, the PR's own
 * commit sets `files.pr`, and its merge of main holds that commit's tree with `files.merge` on top.
 * Rebases the tested PR 4 onto `main`: main's sha, the PR's own commit and the answer.
 */
async function rebasePrThatMergedMain(files: Record<'main' | 'pr' | 'merge', Record<string, string>>) {
  const mainMove = await fx.commit(fx.baseSha, files.main, 'main moves');
  await fx.setRef('refs/heads/main', mainMove);
  const prCommit = await fx.commit(fx.baseSha, files.pr, 'the PR change');
  const resolved = await fx.commit(prCommit, files.merge, 'merge main');
  const merge = await mergeCommit(fx, resolved, prCommit, mainMove);
  await fx.setRef('refs/pull/4/head', merge);
  const pr4 = { number: 4, headSha: merge };
  const testSha = await build('gm/pr-4/x', [pr4], mainMove);
  return { mainMove, prCommit, res: await advance(testSha, [pr4], 'rebase', mainMove) };
}

/** A merge commit with the tree of `treeFrom` and the given parents. */
async function mergeCommit(f: GitFixture, treeFrom: string, ...parentShas: string[]): Promise<string> {
  return git(['commit-tree', `${treeFrom}^{tree}`, ...parentShas.flatMap((p) => ['-p', p])], {
    cwd: f.remote,
    input: 'Merge main into the PR\n',
    env: {
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'd@x',
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'd@x',
      GIT_AUTHOR_DATE: '@1700009999 +0000',
      GIT_COMMITTER_DATE: '@1700009999 +0000',
    },
  });
}

async function hook(f: GitFixture, name: string, body: string): Promise<void> {
  const file = path.join(f.remote, 'hooks', name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
}
