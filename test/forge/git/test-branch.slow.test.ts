import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge } from '../../../src/forge/git/index.js';
import { APP_LINES, appWithLine, makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;

beforeEach(async () => {
  fx = await makeGitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('git forge: test commits', () => {
  it('merges every PR head onto the base in order, one merge commit per PR, and pushes the branch', async () => {
    const h1 = await fx.openPr(1, { 'src/app.txt': appWithLine(1, 'one'), 'one.txt': '1\n' }, { title: 'First' });
    const h2 = await fx.openPr(2, { 'src/app.txt': appWithLine(9, 'nine') }, { title: 'Second' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const branch = 'greenline-merge/pr-1-2/run-a';
    const res = await forge.createTestBranch(fx.binding(), {
      branch,
      baseSha: fx.baseSha,
      prs: [
        { number: 1, headSha: h1 },
        { number: 2, headSha: h2 },
      ],
    });
    if (!res.ok) throw new Error(res.detail);
    expect(await fx.refSha(`refs/heads/${branch}`)).toBe(res.sha);
    expect(await fx.readFile(res.sha, 'src/app.txt')).toBe(appWithLine(9, 'nine', appWithLine(1, 'one')));
    expect(await fx.readFile(res.sha, 'one.txt')).toBe('1\n');
    expect(await fx.readFile(res.sha, 'README.md')).toBe('hello\n');
    const log = await fx.log(res.sha, ['--first-parent']);
    expect(log).toHaveLength(3);
    expect(log[0]).toMatch(new RegExp(`^${res.sha} \\w+ ${h2} \\| Merge pull request #2: Second \\| greenline$`));
    expect(log[1]).toMatch(new RegExp(` ${fx.baseSha} ${h1} \\| Merge pull request #1: First \\| greenline$`));
    expect(log[2]).toBe(`${fx.baseSha}  | Initial commit | Dev One`);
    // Each step of the chain: what the test commit holds after each PR.
    expect(res.steps).toEqual([log[1]!.split(' ')[0], res.sha]);
    await forge.deleteBranch(fx.binding(), branch); // as the run's end does
  });

  it('lists the paths a commit changed since its merge base with another: a rename is both paths', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const head = await fx.openPr(1, { 'src/app.txt': null, 'src/moved app.txt': APP_LINES, 'web/a.css': 'a\n' });
    // The target moves on meanwhile: its own change is not the PR's.
    const moved = await fx.commit(fx.baseSha, { 'README.md': 'hello again\n' }, 'Elsewhere');
    await fx.setRef('refs/heads/main', moved);
    expect(await forge.changedFiles(fx.binding(), { from: moved, to: head })).toEqual([
      'src/app.txt',
      'src/moved app.txt',
      'web/a.css',
    ]);
    expect(await forge.changedFiles(fx.binding(), { from: head, to: head })).toEqual([]);
  });

  it('fails a PR whose merge changes nothing (its changes already in the base or in a PR ahead), pushing no branch', async () => {
    const h1 = await fx.openPr(1, { 'a.txt': 'a\n' });
    const same = await fx.openPr(2, { 'a.txt': 'a\n' }, { title: 'Same change again' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const dup = await forge.createTestBranch(fx.binding(), {
      branch: 'gm/pr-1-2/dup',
      baseSha: fx.baseSha,
      prs: [
        { number: 1, headSha: h1 },
        { number: 2, headSha: same },
      ],
    });
    expect(dup).toEqual({
      ok: false,
      reason: 'START_TEST_RUN_ALREADY_IN_TARGET',
      detail: `PR #2 changes nothing: its changes are already in base ${fx.baseSha.slice(0, 7)} + PR #1 (merged before, or the same as a PR ahead of it)`,
    });
    const onMerged = await forge.createTestBranch(fx.binding(), {
      branch: 'gm/pr-1/merged',
      baseSha: h1,
      prs: [{ number: 1, headSha: h1 }],
    });
    expect(onMerged).toMatchObject({ ok: false, reason: 'START_TEST_RUN_ALREADY_IN_TARGET' });
    expect(await fx.refSha('refs/heads/gm/pr-1-2/dup')).toBeNull();
    expect(await fx.refSha('refs/heads/gm/pr-1/merged')).toBeNull();
  });

  it('builds the same sha for the same inputs in any run, and shares the commit of a common prefix', async () => {
    const h1 = await fx.openPr(1, { 'a.txt': 'a\n' });
    const h2 = await fx.openPr(2, { 'b.txt': 'b\n' });
    const prs = [
      { number: 1, headSha: h1 },
      { number: 2, headSha: h2 },
    ];
    const one = createGitForge({ dataDir: fx.dataDir, logger });
    const other = createGitForge({ dataDir: path.join(fx.root, 'other-instance'), logger });
    const a = await one.createTestBranch(fx.binding(), { branch: 'gm/pr-1-2/x', baseSha: fx.baseSha, prs });
    const b = await other.createTestBranch(fx.binding(), { branch: 'gm/pr-1-2/y', baseSha: fx.baseSha, prs });
    const prefix = await one.createTestBranch(fx.binding(), {
      branch: 'gm/pr-1/z',
      baseSha: fx.baseSha,
      prs: prs.slice(0, 1),
    });
    if (!a.ok || !b.ok || !prefix.ok) throw new Error('build failed');
    expect(b.sha).toBe(a.sha);
    expect((await fx.log(a.sha, ['--first-parent']))[1].split(' ')[0]).toBe(prefix.sha);
  });

  it('is idempotent: building and pushing the same branch again succeeds with the same sha', async () => {
    const h1 = await fx.openPr(1, { 'a.txt': 'a\n' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const req = { branch: 'gm/pr-1/r', baseSha: fx.baseSha, prs: [{ number: 1, headSha: h1 }] };
    const first = await forge.createTestBranch(fx.binding(), req);
    const again = await forge.createTestBranch(fx.binding(), req);
    expect(again).toEqual(first);
    expect(first.ok).toBe(true);
    // Another instance (its own data dir and mirror) repeating it, as after a takeover, too.
    const other = createGitForge({ dataDir: `${fx.dataDir}-other`, logger });
    expect(await other.createTestBranch(fx.binding(), req)).toEqual(first);
  });

  it('fails with START_TEST_RUN_MERGE_CONFLICT naming the PR, what it conflicts with and the files', async () => {
    const h1 = await fx.openPr(1, { 'src/app.txt': appWithLine(4, 'four by one'), 'README.md': 'hi from one\n' });
    const h2 = await fx.openPr(2, { 'other.txt': 'o\n' });
    const h3 = await fx.openPr(3, { 'src/app.txt': appWithLine(4, 'four by three'), 'README.md': 'hi from three\n' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const res = await forge.createTestBranch(fx.binding(), {
      branch: 'gm/pr-3/c',
      baseSha: fx.baseSha,
      prs: [
        { number: 1, headSha: h1 },
        { number: 2, headSha: h2 },
        { number: 3, headSha: h3 },
      ],
    });
    expect(res).toEqual({
      ok: false,
      reason: 'START_TEST_RUN_MERGE_CONFLICT',
      detail: `PR #3 conflicts with base ${fx.baseSha.slice(0, 7)} + PR #1 + PR #2: files README.md, src/app.txt`,
    });
    expect(await fx.refSha('refs/heads/gm/pr-3/c')).toBeNull();
  });

  it('fetches PR heads pushed after the last fetch', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger, fetchTtlMs: 60_000 });
    await forge.getBranchSha(fx.binding(), 'main');
    const late = await fx.openPr(5, { 'late.txt': 'late\n' });
    const res = await forge.createTestBranch(fx.binding(), {
      branch: 'gm/pr-5/l',
      baseSha: fx.baseSha,
      prs: [{ number: 5, headSha: late }],
    });
    expect(res.ok).toBe(true);
  });

  it('rejects a commit the remote does not have, naming it', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const ghost = 'f'.repeat(40);
    await expect(
      forge.createTestBranch(fx.binding(), {
        branch: 'gm/x',
        baseSha: fx.baseSha,
        prs: [{ number: 1, headSha: ghost }],
      }),
    ).rejects.toThrow(`commits not found on the remote: ${ghost}`);
  });

  it('rejects an invalid branch name', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    await expect(
      forge.createTestBranch(fx.binding(), { branch: 'bad..name', baseSha: fx.baseSha, prs: [] }),
    ).rejects.toThrow('"bad..name" is not a valid branch name');
  });

  it('deletes test branches; deleting a missing branch succeeds', async () => {
    const h1 = await fx.openPr(1, { 'a.txt': 'a\n' });
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    const branch = 'gm/pr-1/d';
    await forge.createTestBranch(fx.binding(), { branch, baseSha: fx.baseSha, prs: [{ number: 1, headSha: h1 }] });
    expect(await forge.getBranchSha(fx.binding(), branch)).not.toBeNull();
    await forge.deleteBranch(fx.binding(), branch);
    expect(await fx.refSha(`refs/heads/${branch}`)).toBeNull();
    expect(await forge.getBranchSha(fx.binding(), branch)).toBeNull();
    await expect(forge.deleteBranch(fx.binding(), branch)).resolves.toBeUndefined();
    await expect(forge.deleteBranch(fx.binding(), 'never-existed')).resolves.toBeUndefined();
  });

  it('lists the branches the remote holds under a prefix, also those pushed by others since the last fetch', async () => {
    const forge = createGitForge({ dataDir: fx.dataDir, logger });
    await fx.setRef('refs/heads/gm/pr-1/a', fx.baseSha);
    expect(await forge.listBranches(fx.binding(), 'gm/')).toEqual(['gm/pr-1/a']);
    await fx.setRef('refs/heads/gm/pr-2/b', fx.baseSha);
    await fx.setRef('refs/heads/gm-temp/pr-3/c', fx.baseSha);
    await fx.setRef('refs/pull/4/head', fx.baseSha);
    expect((await forge.listBranches(fx.binding(), 'gm/')).sort()).toEqual(['gm/pr-1/a', 'gm/pr-2/b']);
  });
});
