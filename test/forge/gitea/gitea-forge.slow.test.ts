/**
 * The gitea forge against the fake of each dialect (a real HTTP server over a real bare repository,
 * every request checked against the dialect's Swagger document), with the real git forge building,
 * pushing and advancing branches over git's HTTP protocol.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge } from '../../../src/forge/git/index.js';
import { GiteaForge } from '../../../src/forge/gitea/index.js';
import { DEFAULT_QUEUE_CONFIG } from '../../../src/engine/config.js';
import type { QueueEventPayload } from '../../../src/engine/types.js';
import type { RepoBinding } from '../../../src/forge/port.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Dialect, FakeGiteaApi } from './fake-gitea-api.js';

const DIALECTS: Dialect[] = ['gitea', 'forgejo'];

describe.each(DIALECTS)('the gitea forge on %s', (dialect) => {
  let fake: FakeGiteaApi;
  let forge: GiteaForge;
  let dataDir: string;
  let repo: RepoBinding;
  let main: string;

  beforeEach(async () => {
    fake = await FakeGiteaApi.start(dialect);
    dataDir = await makeTempDir('greenline-gitea-forge-');
    const logger = pino({ level: 'silent' });
    forge = new GiteaForge({
      url: fake.url,
      token: fake.token,
      git: createGitForge({ dataDir, logger, fetchTtlMs: 0 }),
      logger,
      detailsUrl: 'https://greenline.example.com/{owner}/{repo}/{branch}/{pr}',
    });
    repo = {
      id: 'repo-1',
      org: 'acme',
      repo: { host: '127.0.0.1', owner: 'acme', name: 'web' },
      forge: 'gitea',
      remote: null,
      prRefPattern: 'refs/pull/{n}/head',
      ciCommand: null,
      testBranchPrefix: 'greenline-merge',
    };
    main = (await fake.branchSha('main'))!;
  });
  afterEach(async () => {
    await fake.close();
    await removeTempDir(dataDir);
  });

  const change = (n: number, files: Record<string, string>) => fake.commit(main, files, `Change ${n}`);

  it('reads a PR from the pulls API: base, head, title, author, labels; a draft or a conflict waits', async () => {
    const head = await change(1, { 'a.txt': 'a\n' });
    await fake.openPr(1, { headSha: head, title: 'Add a' });
    fake.pull(1).labels.push(fake.label('merge'));
    expect(await forge.getPullRequest(repo, 1)).toEqual({
      number: 1,
      headSha: head,
      baseBranch: 'main',
      headBranch: 'feature-1',
      title: 'Add a',
      author: 'ada',
      mergeability: 'mergeable',
      labels: ['merge'],
    });
    fake.pull(1).title = 'WIP: Add a';
    expect(await forge.getPullRequest(repo, 1)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'draft' },
    });

    await fake.openPr(2, { headSha: await change(2, { 'README.md': 'theirs\n' }) });
    await fake.setBranch('main', await fake.commit(main, { 'README.md': 'ours\n' }, 'Clash'));
    expect(await forge.getPullRequest(repo, 2)).toMatchObject({
      mergeability: 'not_mergeable',
      unmergeable: { cause: 'conflict' },
    });
    expect(await forge.getPullRequest(repo, 99)).toBeNull();
    fake.closePr(1);
    expect(await forge.getPullRequest(repo, 1)).toBeNull();
    expect(await forge.wasMerged(repo, 1)).toBe(false);
  });

  it('builds the test commit with git, pushes it, lands exactly it and shows the PRs merged', async () => {
    const h1 = await change(1, { 'a.txt': 'a\n' });
    const h2 = await change(2, { 'b.txt': 'b\n' });
    await fake.openPr(1, { headSha: h1 });
    await fake.openPr(2, { headSha: h2 });
    const prs = [
      { number: 1, headSha: h1, title: 'Change 1', author: 'ada' },
      { number: 2, headSha: h2, title: 'Change 2', author: 'ada' },
    ];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/run-1', baseSha: main, prs });
    if (!built.ok) throw new Error(built.detail);
    expect(await fake.branchSha('greenline-merge/main/run-1')).toBe(built.sha);
    expect(await forge.listBranches(repo, 'greenline-merge/')).toEqual(['greenline-merge/main/run-1']);

    fake.allowManualMerge = true;
    const advanced = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: main,
      testSha: built.sha,
      prs,
      method: 'merge_commit',
    });
    expect(advanced).toEqual({ ok: true, newSha: built.sha });
    expect(await fake.branchSha('main')).toBe(built.sha);
    for (const n of [1, 2]) expect(fake.pull(n)).toMatchObject({ merged: true, merge_commit_sha: built.sha });
    expect(await forge.wasMerged(repo, 2)).toBe(true);
    const doKey = dialect === 'gitea' ? 'do' : 'Do';
    const record = { [doKey]: 'manually-merged', MergeCommitID: built.sha, merge_commit_id: built.sha };
    expect(fake.calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { ...record, head_commit_id: h1 },
      { ...record, head_commit_id: h2 },
    ]);

    await forge.deleteBranch(repo, 'greenline-merge/main/run-1');
    expect(await fake.branchSha('greenline-merge/main/run-1')).toBeNull();
  });

  it('records the merge on Gitea 1.26, which binds MergeCommitID', async () => {
    if (dialect === 'forgejo') return;
    await fake.close();
    fake = await FakeGiteaApi.start('gitea', { version: '1.26.1' });
    repo = { ...repo, remote: fake.url };
    fake.allowManualMerge = true;
    main = (await fake.branchSha('main'))!;
    const h1 = await change(1, { 'a.txt': 'a\n' });
    await fake.openPr(1, { headSha: h1 });
    const prs = [{ number: 1, headSha: h1, title: 'Change 1', author: 'ada' }];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/run-1', baseSha: main, prs });
    if (!built.ok) throw new Error(built.detail);
    expect(
      await forge.advanceTarget(repo, {
        targetBranch: 'main',
        expectedSha: main,
        testSha: built.sha,
        prs,
        method: 'merge_commit',
      }),
    ).toEqual({ ok: true, newSha: built.sha });
    expect(fake.pull(1)).toMatchObject({ merged: true, merge_commit_sha: built.sha });
    await forge.deleteBranch(repo, 'greenline-merge/main/run-1');
  });

  it('lands the tested commit where manual merge is not allowed, and says on the PR why it stays open', async () => {
    const h1 = await change(1, { 'a.txt': 'a\n' });
    await fake.openPr(1, { headSha: h1 });
    const prs = [{ number: 1, headSha: h1, title: 'Change 1', author: 'ada' }];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/run-1', baseSha: main, prs });
    if (!built.ok) throw new Error(built.detail);
    const advanced = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: main,
      testSha: built.sha,
      prs,
      method: 'merge_commit',
    });
    // The merge's note (kept as the MERGED PR's detail) says it too, so the queue shows it.
    expect(advanced).toEqual({
      ok: true,
      newSha: built.sha,
      note: expect.stringMatching(
        /^landed on main, but (Gitea|Forgejo) refused to record it merged, so the PR stays open there \(#1: .*allow_manual_merge/,
      ),
    });
    expect(fake.pull(1).merged).toBe(false);
    expect(fake.comments.map((c) => c.body)).toEqual([
      expect.stringContaining(
        `landed on \`main\` as ${built.sha} (the tested commit), but ${dialect === 'gitea' ? 'Gitea' : 'Forgejo'} refused to record it merged: POST /api/v1/repos/acme/web/pulls/1/merge answered 405: manually-merged is not allowed an allowed merge style. Allow it in the repository: Settings → Repository → Pull Requests, tick "Enable Mark PR as manually merged"`,
      ),
    ]);
    await forge.deleteBranch(repo, 'greenline-merge/main/run-1');
  });

  it('lands nothing when the target or a PR moved since the test', async () => {
    const h1 = await change(1, { 'a.txt': 'a\n' });
    await fake.openPr(1, { headSha: h1 });
    const prs = [{ number: 1, headSha: h1, title: 'Change 1', author: 'ada' }];
    const built = await forge.createTestBranch(repo, { branch: 'greenline-merge/main/run-2', baseSha: main, prs });
    if (!built.ok) throw new Error(built.detail);
    await fake.pushToPr(1, await fake.commit(h1, { 'a.txt': 'a2\n' }, 'More'));
    const moved = await forge.advanceTarget(repo, {
      targetBranch: 'main',
      expectedSha: main,
      testSha: built.sha,
      prs,
      method: 'squash',
    });
    expect(moved).toMatchObject({ ok: false, reason: 'PR_UPDATED_AT_MERGE_TIME' });
    expect(await fake.branchSha('main')).toBe(main);
    expect(fake.pull(1).merged).toBe(false);
    await forge.deleteBranch(repo, 'greenline-merge/main/run-2');
  });

  it('reads required statuses from the branch API as a Write user, and every status of a commit page by page', async () => {
    fake.protections.push({ rule_name: 'release/*', enable_status_check: true, status_check_contexts: ['e2e'] });
    fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['build', 'lint'] });
    await fake.setBranch('release/1.0', main);
    await fake.setBranch('dev', main);
    expect(await forge.requiredStatuses(repo, 'main')).toEqual(['build', 'lint']);
    expect(await forge.requiredStatuses(repo, 'release/1.0')).toEqual(['e2e']);
    expect(await forge.requiredStatuses(repo, 'dev')).toEqual([]);

    for (let i = 0; i < 70; i++) fake.addStatus(main, `check-${i}`, 'success');
    fake.addStatus(main, 'check-3', 'failure');
    fake.addStatus(main, 'check-4', 'warning');
    const statuses = await forge.checkStatuses(repo, main);
    expect(statuses).toHaveLength(70);
    expect(statuses.find((s) => s.context === 'check-3')?.state).toBe('failure');
    expect(statuses.find((s) => s.context === 'check-4')?.state).toBe('failure');
    expect(statuses.filter((s) => s.state === 'success')).toHaveLength(68);
    expect(statuses[0]!.at).toBe(Date.parse(fake.statuses[0]!.created_at));
  });

  it('shows the queue on the PR: a greenline status with a link, one comment kept up to date, state labels', async () => {
    const head = await change(1, { 'a.txt': 'a\n' });
    await fake.openPr(1, { headSha: head });
    const config = {
      ...DEFAULT_QUEUE_CONFIG,
      statusCheckEnabled: true,
      commentsEnabled: true,
      stateLabelsEnabled: true,
    };
    const event = (type: QueueEventPayload['type'], more: Partial<QueueEventPayload> = {}): QueueEventPayload =>
      ({
        type,
        at: 0,
        prNumbers: [1],
        prNumbersInBatch: [1],
        runId: null,
        testBranch: null,
        testBranchSha: null,
        batched: false,
        ...more,
      }) as QueueEventPayload;
    await forge.onQueueEvent(repo, { targetBranch: 'main', config }, event('pull_request.queued'));
    await forge.onQueueEvent(
      repo,
      { targetBranch: 'main', config, reasons: new Map([[1, { message: 'The required check build failed.' }]]) },
      event('pull_request.failed'),
    );
    const statuses = fake.latestStatuses(head);
    expect(statuses).toMatchObject([
      {
        context: 'greenline (main)',
        state: 'failure',
        description: 'Failed',
        target_url: 'https://greenline.example.com/acme/web/main/1',
      },
    ]);
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]!.body).toContain('❌ Failed');
    expect(fake.comments[0]!.body).toContain('The required check build failed.');
    expect(fake.pull(1).labels.map((id) => fake.labels.find((l) => l.id === id)?.name)).toEqual(['greenline:failed']);
  });

  it('lets write access or more command the queue (the assignees, which a Write user may read), and tells others why not', async () => {
    fake.users.set('rex', 'read');
    fake.users.set('olga', 'owner');
    expect(await forge.mayCommand(repo, { login: 'ada' })).toEqual({ ok: true });
    expect(await forge.mayCommand(repo, { login: 'olga' })).toEqual({ ok: true });
    expect(await forge.mayCommand(repo, { login: 'rex' })).toEqual({
      ok: false,
      reason:
        'only people with write access to acme/web can command the merge queue (rex has no write access); ask a maintainer',
    });
    expect(await forge.mayCommand(repo, { login: 'stranger' })).toMatchObject({ ok: false });
  });

  it('describes the repository as the forge spells it, with push access, manual merge and protection', async () => {
    fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['build'] });
    const shouted = { ...repo, repo: { ...repo.repo, owner: 'ACME', name: 'Web' } };
    expect(await forge.describeRepository(shouted)).toEqual({ owner: 'acme', name: 'web', defaultBranch: 'main' });
    expect(await forge.repositoryFacts(shouted)).toMatchObject({
      canPush: true,
      // Forgejo's API does not show the setting.
      allowManualMerge: dialect === 'gitea' ? false : null,
      defaultBranchRule: { protected: true, rule: 'main', requiredContexts: ['build'], userCanPush: true },
    });
    expect(await forge.describeRepository({ ...repo, repo: { ...repo.repo, name: 'nope' } })).toBeNull();
  });

  it('answers a command with a comment, and says the token was refused when it is', async () => {
    await fake.openPr(1, { headSha: await change(1, { 'a.txt': 'a\n' }) });
    await forge.reply(repo, 1, 'PR #1 is a draft: mark it ready first.');
    expect(fake.comments.map((c) => c.body)).toEqual(['PR #1 is a draft: mark it ready first.']);
    fake.token = 'rotated';
    await expect(forge.getPullRequest(repo, 1)).rejects.toThrow(/refused greenline's token.*set giteaToken/);
  });
});
