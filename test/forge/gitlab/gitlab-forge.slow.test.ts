/**
 * The gitlab forge against the fake GitLab: what GitLab is still checking waits (never a conflict),
 * its other merge checks wait in words, a rate limit becomes ForgeRateLimitedError with GitLab's
 * Retry-After, every page of a commit's statuses is read, a retry retries the failed jobs (new jobs,
 * the latest deciding), a squash merge GitLab refuses merges nothing and names what to change, and a
 * squash merge tried again counts what its lost attempt merged; where greenline's user may push to the
 * target, merge_commit lands by a push; where it may not (GitLab refuses its push), merge_commit goes
 * through the merge API and rebase is refused, naming what to change; an MR assigned
 * to greenline's own user is a merge command.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge } from '../../../src/forge/git/index.js';
import { GitlabForge } from '../../../src/forge/gitlab/index.js';
import { ForgeRateLimitedError, type RepoBinding } from '../../../src/forge/port.js';
import { runGit } from '../../../src/git/git.js';
import { systemClock } from '../../../src/lib/clock.js';
import { silentLogger } from '../../helpers/service-over-forge.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { ACCESS, FakeGitlabApi } from './fake-gitlab-api.js';
import { capturedPayload } from './fake-gitlab-deliveries.js';

let fake: FakeGitlabApi;
let dataDir: string;
let forge: GitlabForge;
let repo: RepoBinding;

beforeEach(async () => {
  fake = await FakeGitlabApi.start('acme/tools/web');
  dataDir = await makeTempDir('greenline-gitlab-forge-');
  forge = new GitlabForge({
    url: fake.url,
    token: fake.token,
    git: createGitForge({ dataDir, logger: silentLogger, fetchTtlMs: 0 }),
    logger: silentLogger,
  });
  repo = {
    id: 'r1',
    org: 'acme',
    repo: { host: '127.0.0.1', owner: 'acme/tools', name: 'web' },
    forge: 'gitlab',
    remote: fake.url,
    prRefPattern: 'refs/merge-requests/{n}/head',
    ciCommand: null,
    testBranchPrefix: 'greenline-merge',
  };
});
afterEach(async () => {
  await fake.close();
  await removeTempDir(dataDir);
});

const change = async (file: string) =>
  fake.repo.commit(await fake.repo.branchSha('main'), { [file]: `${file}\n` }, `Add ${file}`);

describe('the gitlab forge', () => {
  it('reads an MR GitLab is still checking as in progress, then as it is', async () => {
    await fake.openMr(1, { headSha: await change('a.txt'), title: '[Draft] a' });
    expect(await forge.getPullRequest(repo, 1)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'draft' },
    });
    fake.mr(1).title = 'a';
    fake.mr(1).checking = 1;
    expect(await forge.getPullRequest(repo, 1)).toMatchObject({ mergeability: 'in_progress' });
    expect(await forge.getPullRequest(repo, 1)).toMatchObject({
      mergeability: 'mergeable',
      headSha: await fake.headOf(1),
      baseBranch: 'main',
      headBranch: 'feature-1',
    });
    fake.closeMr(1);
    expect(await forge.getPullRequest(repo, 1)).toBeNull();
  });

  it('turns a 429 into ForgeRateLimitedError at GitLab’s Retry-After', async () => {
    await fake.openMr(1, { headSha: await change('a.txt') });
    fake.rateLimit(1, 40);
    const before = systemClock.now();
    const err = await forge.getPullRequest(repo, 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeRateLimitedError);
    expect((err as ForgeRateLimitedError).retryAt).toBeGreaterThanOrEqual(before + 40_000);
    expect((err as ForgeRateLimitedError).retryAt).toBeLessThan(before + 50_000);
  });

  it('reads every page of a commit’s statuses, and retries the failed jobs with new ones', async () => {
    const head = await change('a.txt');
    await fake.repo.setBranch('pipelines-run', head);
    const jobs = Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`job-${i}`, 'success' as const]));
    const pipeline = fake.runPipeline(head, 'pipelines-run', { ...jobs, build: 'failed' });
    const statuses = await forge.checkStatuses(repo, head);
    expect(statuses).toHaveLength(122);
    expect(statuses.find((s) => s.context === 'gitlab/pipeline')?.state).toBe('failure');
    expect(statuses.find((s) => s.context === 'build')?.state).toBe('failure');
    await forge.rerunChecks(repo, { sha: head, branch: 'pipelines-run' });
    expect(fake.latestJobs(pipeline.id).find((j) => j.name === 'build')?.status).toBe('pending');
    expect(fake.jobs.filter((j) => j.name === 'build').map((j) => [j.status, j.retried])).toEqual([
      ['failed', true],
      ['pending', false],
    ]);
    expect((await forge.checkStatuses(repo, head)).find((s) => s.context === 'build')?.state).toBe('pending');
  });

  it('merges nothing when GitLab refuses a squash merge, naming what to change', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    await fake.openMr(1, { headSha: await change('a.txt') });
    fake.members.set(fake.tokenUser, ACCESS.developer);
    const result = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: base,
      testSha: base,
      prs: [{ number: 1, headSha: await fake.headOf(1) }],
      method: 'squash',
    });
    expect(result).toMatchObject({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: expect.stringMatching(
        /^!1: greenline's GitLab user may not merge into the target: allow its role to merge/,
      ),
    });
    expect(await fake.repo.branchSha('main')).toBe(base);
    expect(fake.mr(1).state).toBe('opened');
  });

  it('counts an MR an earlier attempt of the same squash merge merged (its answer lost) as merged, and merges the rest', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    await fake.openMr(1, { headSha: await change('a.txt') });
    await fake.openMr(2, { headSha: await change('b.txt') });
    const prs = [
      { number: 1, headSha: await fake.headOf(1) },
      { number: 2, headSha: await fake.headOf(2) },
    ];
    // The first attempt's merge of !1 went through; greenline never read the answer.
    const lost = await fetch(
      `${fake.url}/api/v4/projects/${encodeURIComponent('acme/tools/web')}/merge_requests/1/merge`,
      {
        method: 'PUT',
        headers: { 'private-token': fake.token, 'content-type': 'application/json' },
        body: JSON.stringify({ sha: prs[0]!.headSha, squash: true }),
      },
    );
    expect(lost.status).toBe(200);
    const result = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: base,
      testSha: base,
      prs,
      method: 'squash',
    });
    expect(result).toEqual({ ok: true, newSha: await fake.repo.branchSha('main') });
    expect([
      fake.mr(1).state,
      fake.mr(2).state,
      await fake.repo.fileAt('main', 'a.txt'),
      await fake.repo.fileAt('main', 'b.txt'),
    ]).toEqual(['merged', 'merged', 'a.txt\n', 'b.txt\n']);
  });

  it('where its user may push to the target, lands merge_commit batches by a push, GitLab marking each MR merged', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    await fake.openMr(1, { headSha: await change('a.txt') });
    await fake.openMr(2, { headSha: await change('b.txt') });
    const prs = [
      { number: 1, headSha: await fake.headOf(1) },
      { number: 2, headSha: await fake.headOf(2) },
    ];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/t1', baseSha: base, prs });
    if (!built.ok) throw new Error(built.detail);
    const result = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: base,
      testSha: built.sha,
      prs,
      method: 'merge_commit',
    });
    expect(result).toEqual({ ok: true, newSha: built.sha });
    expect(await fake.repo.branchSha('main')).toBe(built.sha);
    expect([fake.mr(1).state, fake.mr(2).state]).toEqual(['merged', 'merged']);
    expect(fake.calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/merge'))).toEqual([]);
    await forge.deleteBranch(repo, 'greenline-merge/main/t1');
  });

  it('where its user may not push to the target, merges merge_commit batches through the merge API onto the tested tree', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    await fake.openMr(1, { headSha: await change('a.txt') });
    await fake.openMr(2, { headSha: await change('b.txt') });
    fake.members.set(fake.tokenUser, ACCESS.developer);
    fake.protectedBranches[0]!.merge = ACCESS.developer; // Maintainers push, Developers merge
    const prs = [
      { number: 1, headSha: await fake.headOf(1) },
      { number: 2, headSha: await fake.headOf(2) },
    ];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/t1', baseSha: base, prs });
    if (!built.ok) throw new Error(built.detail);
    // GitLab refuses this user's push of the tested commit to main.
    const pushed = await runGit(['push', fake.gitUrl, `${built.sha}:refs/heads/main`], {
      cwd: fake.repo.bare,
      okCodes: [1],
    });
    expect([pushed.code, pushed.stderr]).toEqual([
      1,
      expect.stringContaining('GitLab: You are not allowed to push code to protected branches on this project.'),
    ]);
    expect(await fake.repo.branchSha('main')).toBe(base);
    const result = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: base,
      testSha: built.sha,
      prs,
      method: 'merge_commit',
    });
    const tip = (await fake.repo.branchSha('main'))!;
    expect(result).toEqual({ ok: true, newSha: tip });
    expect(await fake.repo.treeOf(tip)).toBe(await fake.repo.treeOf(built.sha));
    expect([fake.mr(1).state, fake.mr(2).state]).toEqual(['merged', 'merged']);
    expect(fake.calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/merge')).map((c) => c.body)).toEqual([
      { sha: prs[0]!.headSha, squash: false },
      { sha: prs[1]!.headSha, squash: false },
    ]);
    await forge.deleteBranch(repo, 'greenline-merge/main/t1');
  });

  it('where its user may not push, refuses rebase, and merge_commit under another GitLab merge method, naming what to change', async () => {
    const base = (await fake.repo.branchSha('main'))!;
    await fake.openMr(1, { headSha: await change('a.txt') });
    fake.members.set(fake.tokenUser, ACCESS.developer);
    const prs = [{ number: 1, headSha: await fake.headOf(1) }];
    const req = { targetBranch: 'main', expectedSha: base, testSha: base, prs };
    expect(await forge.advanceTarget(repo, { ...req, method: 'rebase' })).toMatchObject({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: expect.stringMatching(
        /may not push to main, and the merge method rebase needs that push .*: allow its role to push to main .*Protected branches/,
      ),
    });
    fake.settings.merge_method = 'ff';
    expect(await forge.advanceTarget(repo, { ...req, method: 'merge_commit' })).toMatchObject({
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: expect.stringMatching(
        /GitLab's merge method "ff" would not land the tested merge commits: .*"Merge commit"/,
      ),
    });
    expect([fake.mr(1).state, await fake.repo.branchSha('main')]).toEqual(['opened', base]);
  });

  it("reads an MR assigned to greenline's own user (learned from GitLab once) as a merge command by whoever assigned it", async () => {
    const assigned = (previous: string[], current: string[]) => {
      const payload = capturedPayload('merge_request.open') as Record<string, Record<string, unknown>>;
      payload.object_attributes!.action = 'update';
      Object.assign(payload.project!, { web_url: `${fake.url}/acme/tools/web`, path_with_namespace: 'acme/tools/web' });
      const users = (names: string[]) => names.map((username, id) => ({ id, name: username, username }));
      payload.changes = { assignees: { previous: users(previous), current: users(current) } };
      return forge.translate('Merge Request Hook', payload);
    };
    const merge = { kind: 'prComment', prNumber: 1, command: { kind: 'merge', noBatch: false }, author: 'root' };
    expect((await assigned(['user1'], ['user1', fake.tokenUser]))?.observations).toEqual([
      merge,
      { kind: 'prTouched', prNumber: 1 },
    ]);
    expect((await assigned([], ['user1']))?.observations).toEqual([{ kind: 'prTouched', prNumber: 1 }]);
    expect((await assigned([fake.tokenUser], [fake.tokenUser, 'user1']))?.observations).toEqual([
      { kind: 'prTouched', prNumber: 1 },
    ]);
    expect(fake.calls.filter((c) => c.path === '/user')).toHaveLength(1);
  });

  it('with "Pipelines must succeed", turns its own running status to passed before a squash merge, which GitLab then takes', async () => {
    fake.settings.only_allow_merge_if_pipeline_succeeds = true;
    const base = (await fake.repo.branchSha('main'))!;
    const head = await change('a.txt');
    await fake.openMr(1, { headSha: head });
    fake.runPipeline(head, 'feature-1', { build: 'success' });
    // greenline's status while the MR was tested: a running job of an external pipeline of the head.
    const own = fake.addJob(
      fake.pipelineOf(head, 'feature-1', 'external'),
      'greenline (main)',
      'running',
      fake.tokenUser,
    );
    const result = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: base,
      testSha: base,
      prs: [{ number: 1, headSha: head }],
      method: 'squash',
    });
    expect(result).toMatchObject({ ok: true, newSha: await fake.repo.branchSha('main') });
    expect([own.status, fake.mr(1).state, await fake.repo.fileAt('main', 'a.txt')]).toEqual([
      'success',
      'merged',
      'a.txt\n',
    ]);
  });
});
