import { existsSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../../src/git/git.js';
import { createGitForge } from '../../../src/forge/git/index.js';
import { appWithLine, makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;

beforeEach(async () => {
  fx = await makeGitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('git forge: pull requests', () => {
  it('reads head, title, author and mergeability against the target branch', async () => {
    const head = await fx.openPr(
      7,
      { 'src/app.txt': appWithLine(2, 'two') },
      { title: 'Fix line two', author: 'Ada Lovelace' },
    );
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    expect(await forge.getPullRequest(fx.binding(), 7, 'main')).toEqual({
      number: 7,
      headSha: head,
      baseBranch: 'main',
      title: 'Fix line two',
      author: 'Ada Lovelace',
      mergeability: 'mergeable',
      alreadyInBase: false,
    });
  });

  it('reports a PR already in the target: its head contained in it, or its changes squash-merged', async () => {
    const contained = await fx.openPr(4, { 'four.txt': '4\n' });
    const squashed = await fx.openPr(5, { 'five.txt': '5\n' });
    // main: #4's head itself (fast-forwarded), then a squash commit of #5's change (a new commit, same content).
    const merged = await fx.commit(contained, { 'five.txt': '5\n' }, 'Five (#5)');
    await fx.setRef('refs/heads/main', merged);
    await fx.openPr(6, { 'six.txt': '6\n' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 0 });
    expect(await forge.getPullRequest(fx.binding(), 4, 'main')).toMatchObject({
      headSha: contained,
      mergeability: 'mergeable',
      alreadyInBase: true,
    });
    expect(await forge.getPullRequest(fx.binding(), 5, 'main')).toMatchObject({
      headSha: squashed,
      mergeability: 'mergeable',
      alreadyInBase: true,
    });
    expect(await forge.getPullRequest(fx.binding(), 6, 'main')).toMatchObject({
      mergeability: 'mergeable',
      alreadyInBase: false,
    });
  });

  it('reports not_mergeable with the conflicting files when the head conflicts with the target, and uses the remote default branch without one', async () => {
    await fx.openPr(3, { 'src/app.txt': appWithLine(5, 'five from the PR') });
    await fx.setRef(
      'refs/heads/main',
      await fx.commit(fx.baseSha, { 'src/app.txt': appWithLine(5, 'five on main') }, 'main moves'),
    );
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 0 });
    const pr = await forge.getPullRequest(fx.binding(), 3);
    expect(pr).toMatchObject({
      number: 3,
      baseBranch: 'main',
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'conflict', files: ['src/app.txt'] },
    });
  });

  it('returns null for a PR whose ref does not exist', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    expect(await forge.getPullRequest(fx.binding(), 404, 'main')).toBeNull();
  });

  it('follows the PR ref pattern of the binding', async () => {
    const head = await fx.commit(fx.baseSha, { 'x.txt': 'x\n' }, 'Add x');
    await fx.setRef('refs/merge-requests/12/head', head);
    await fx.setRef('refs/heads/pr/13', head);
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const mr = fx.binding({ prRefPattern: 'refs/merge-requests/{n}/head' });
    expect((await forge.getPullRequest(mr, 12, 'main'))?.headSha).toBe(head);
    expect((await forge.getPullRequest(mr, 12, 'main'))?.headBranch).toBeUndefined();
    expect(await forge.getPullRequest(fx.binding(), 12, 'main')).toBeNull();
    // PR heads that are branches give the PR its head branch.
    const byBranch = fx.binding({ prRefPattern: 'refs/heads/pr/{n}' });
    expect(await forge.getPullRequest(byBranch, 13, 'main')).toMatchObject({ title: 'Add x', headBranch: 'pr/13' });
  });

  it('keeps the mirror under dataDir/repos/<host>/<owner>/<name>.git', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    await forge.getBranchSha(fx.binding(), 'main');
    const dir = path.join(fx.dataDir, 'repos', 'local', 'acme', 'widgets.git');
    expect(await git(['rev-parse', 'refs/heads/main'], { cwd: dir })).toBe(fx.baseSha);
  });

  it("names the remote and git's reason when the remote cannot be reached", async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const missing = path.join(fx.root, 'no-such-remote.git');
    await expect(forge.getPullRequest(fx.binding({ remote: missing }), 1, 'main')).rejects.toThrow(
      `cannot reach remote ${missing}: fatal: '${missing}' does not appear to be a git repository`,
    );
  });

  it('treats a remote that looks like an option as a remote, not an option', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const marker = path.join(fx.root, 'marker');
    await expect(forge.getBranchSha(fx.binding({ remote: `--upload-pack=touch ${marker}` }), 'main')).rejects.toThrow(
      /cannot reach remote --upload-pack/,
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe('git forge: branches', () => {
  it('returns the sha of a branch, null for a missing one', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    expect(await forge.getBranchSha(fx.binding(), 'main')).toBe(fx.baseSha);
    expect(await forge.getBranchSha(fx.binding(), 'nope')).toBeNull();
  });

  it('fetches once per freshness window, and again after it', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 60_000 });
    const fresh = createGitForge({ dataDir: path.join(fx.root, 'data2'), logger, fetchTtlMs: 0 });
    const results = await Promise.all([1, 2, 3].map(() => forge.getBranchSha(fx.binding(), 'main')));
    expect(results).toEqual([fx.baseSha, fx.baseSha, fx.baseSha]);
    const moved = await fx.commit(fx.baseSha, { 'y.txt': 'y\n' }, 'outside push');
    await fx.setRef('refs/heads/main', moved);
    // Within the window the mirror answers from its last fetch; a forge without a window sees the push.
    expect(await forge.getBranchSha(fx.binding(), 'main')).toBe(fx.baseSha);
    expect(await fresh.getBranchSha(fx.binding(), 'main')).toBe(moved);
  });

  it('finds a PR pushed within the freshness window instead of calling it missing', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 60_000 });
    expect(await forge.getBranchSha(fx.binding(), 'main')).toBe(fx.baseSha);
    const head = await fx.openPr(41, { 'late.txt': 'late\n' }, { title: 'Pushed just now' });
    const pr = await forge.getPullRequest(fx.binding(), 41, 'main');
    expect(pr?.headSha).toBe(head);
    expect(pr?.title).toBe('Pushed just now');
  });

  it('finds a branch pushed within the freshness window instead of calling it missing', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 60_000 });
    expect(await forge.getBranchSha(fx.binding(), 'main')).toBe(fx.baseSha);
    await fx.setRef('refs/heads/release', fx.baseSha);
    expect(await forge.getBranchSha(fx.binding(), 'release')).toBe(fx.baseSha);
  });

  it('sees a branch deleted on the remote as gone after a fetch', async () => {
    await fx.setRef('refs/heads/feature', fx.baseSha);
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 0 });
    expect(await forge.getBranchSha(fx.binding(), 'feature')).toBe(fx.baseSha);
    await git(['update-ref', '-d', 'refs/heads/feature'], { cwd: fx.remote });
    expect(await forge.getBranchSha(fx.binding(), 'feature')).toBeNull();
  });
});
