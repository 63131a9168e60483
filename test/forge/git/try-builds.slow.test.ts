/**
 * Try builds on the git forge, in the real service over real repositories, with the built-in CI
 * running a command that writes what it was given: a try that passes, one that fails, one on top of
 * the queue, one cancelled by a push, one per PR at a time, one asked for in a comment; none of them
 * queues its PR, and each tells its PR how it ended.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureOrg } from '../../../src/app/admin/org-admin.js';
import { connectRepo } from '../../../src/app/admin/repo-admin.js';
import { type App, createApp } from '../../../src/app/create-app.js';
import { EVERY_SCOPE } from '../../../src/app/scopes.js';
import type { AuthContext, QueueKey, TryBuildView } from '../../../src/app/service-port.js';
import { TRY_CONTEXT } from '../../../src/app/try-builds.js';
import { type CommandCi, createCommandCi } from '../../../src/ci/command/index.js';
import { createGitForge } from '../../../src/forge/git/index.js';
import { git } from '../../../src/git/git.js';
import type { ForgePort } from '../../../src/forge/port.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { connect, type Db } from '../../../src/store/connect.js';
import { findRepoAndQueue } from '../../../src/store/queues.js';
import { migrateToLatest } from '../../../src/store/migrations/index.js';
import { ScriptedCi } from '../../doubles/scripted-ci.js';
import { makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';
import { silentLogger } from '../../helpers/service-over-forge.js';
import { waitUntil } from '../../helpers/wait-until.js';

/**
 * Writes what it was given to `<out>/<PR numbers>.txt`; fails when the tree has FAIL, and keeps
 * running (until stopped) when it has SLOW.
 */
const CI_COMMAND = [
  'out="$OUT_DIR/$(echo "$GREENLINE_PR_NUMBERS" | tr , -).txt"',
  'printf "%s\\n" "$GREENLINE_TEST_BRANCH" "$GREENLINE_BASE_SHA" "$GREENLINE_PR_NUMBERS" > "$out"',
  'cat "$GREENLINE_CHANGED_FILES" >> "$out"',
  'if [ -f SLOW ]; then touch "$out.running"; sleep 60; fi',
  'test ! -f FAIL',
].join('; ');

let fx: GitFixture;
let db: Db;
let app: App;
let tryCi: CommandCi;
let ctx: AuthContext;
let key: QueueKey;
let comments: { pr: number; body: string }[];

beforeEach(async () => {
  fx = await makeGitFixture();
  comments = [];
  const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
  const gitForge = createGitForge({ dataDir: fx.dataDir, logger: silentLogger, fetchTtlMs: 0 });
  // The git forge has no PR comments: what greenline would post is recorded here.
  const forge: ForgePort = Object.assign(Object.create(gitForge) as ForgePort, {
    reply: async (_repo: unknown, pr: number, body: string) => void comments.push({ pr, body }),
  });
  db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
  await migrateToLatest(db);
  const ci = new ScriptedCi();
  app = createApp({
    db,
    clock,
    forges: { git: forge },
    pollIntervalMs: 60_000,
    newId: randomUUID,
    createCi: (onStatus) => {
      ci.onStatus = onStatus;
      return ci;
    },
    createTryCi: (onStatus) =>
      (tryCi = createCommandCi({
        dataDir: path.join(fx.dataDir, 'tries'),
        maxParallel: 4,
        onStatus,
        statusContext: TRY_CONTEXT,
        logger: silentLogger,
        killGraceMs: 1_000,
        env: { PATH: process.env.PATH ?? '', OUT_DIR: fx.root },
      })),
  });
  const org = await ensureOrg(db, 'acme', clock.now());
  ctx = { orgId: org.id, orgName: org.name, tokenId: 'test', tokenName: 'ci-bot', scopes: EVERY_SCOPE };
  const { owner, name } = fx.binding().repo;
  await connectRepo(
    db,
    { org: 'acme', forge: 'git', slug: `local/${owner}/${name}`, remote: fx.remote, ciCommand: CI_COMMAND },
    clock.now(),
  );
  key = { repo: { host: 'local', owner, name }, targetBranch: 'main' };
  await app.service.createQueue(ctx, key, {});
});
afterEach(async () => {
  await app.stop();
  await tryCi.stop();
  await db.destroy();
  // Tests end with a queued PR testing and a try of a new head running: their branches are theirs.
  const branches = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/greenline-merge/'], {
    cwd: fx.remote,
  });
  for (const ref of branches.split('\n').filter(Boolean)) await git(['update-ref', '-d', ref], { cwd: fx.remote });
  await fx.cleanup();
});

const latest = (n: number) => app.service.getPullRequestTry(ctx, key, n);
/** The try of PR `n` once it ended, and what ending it does (the comment, the branch deleted) is done. */
async function ended(n: number): Promise<TryBuildView> {
  const done = await waitUntil(`the try of #${n} to end`, 20_000, async () => {
    const t = await latest(n);
    return t && ['passed', 'failed', 'cancelled'].includes(t.state) ? t : undefined;
  });
  await app.tries!.settled();
  return done;
}
const given = async (prs: string) => (await readFile(path.join(fx.root, `${prs}.txt`), 'utf8')).trim().split('\n');
const tryBranches = async () =>
  (await fx.log('--all', ['--format=%D'])).join(' ').match(/greenline-merge\/try-[^,\s]*/g) ?? [];

describe('try builds', () => {
  it('tests the PR merged with the target head and tells the PR it passed, without queueing it', async () => {
    const head = await fx.openPr(1, { 'web/a.css': 'a\n' });
    const started = await app.service.tryPullRequest(ctx, key, { prNumber: 1 });
    expect(started).toMatchObject({ prNumber: 1, headSha: head, onQueue: false, requestedBy: 'API token "ci-bot"' });

    const done = await ended(1);
    expect(done).toMatchObject({ state: 'passed', baseSha: fx.baseSha, prNumbers: [1] });
    const [branch, base, prs, ...files] = await given('1');
    expect(branch).toMatch(/^greenline-merge\/try-1\//);
    expect([base, prs, files]).toEqual([fx.baseSha, '1', ['web/a.css']]);
    // The tested commit is the target head with the PR merged.
    expect(await fx.readFile(done.testSha!, 'web/a.css')).toBe('a\n');
    expect(await fx.readFile(done.testSha!, 'README.md')).toBe('hello\n');
    expect(comments).toEqual([
      { pr: 1, body: expect.stringMatching(/^greenline try \(.* merged with main at .*\) passed/) },
    ]);
    expect(await tryBranches()).toEqual([]);
    await expect(app.service.getSubmittedPullRequest(ctx, key, { number: 1 })).rejects.toMatchObject({
      code: 'PR_NOT_SUBMITTED',
    });
    expect(await fx.refSha('refs/heads/main')).toBe(fx.baseSha);
  });

  it('tells the PR its try failed, and why', async () => {
    await fx.openPr(2, { FAIL: 'x\n' });
    await app.service.tryPullRequest(ctx, key, { prNumber: 2 });
    const done = await ended(2);
    expect(done).toMatchObject({
      state: 'failed',
      detail: expect.stringMatching(/^greenline try reported failure: exited with code 1 after/),
    });
    expect(comments).toEqual([{ pr: 2, body: expect.stringContaining(') failed ❌: greenline try reported failure') }]);
  });

  it('builds on top of the queue as it stands with onQueue', async () => {
    await app.service.updateQueue(ctx, key, { requiredStatuses: ['build'] });
    await fx.openPr(3, { 'api/b.go': 'b\n' });
    await app.service.submitPullRequest(ctx, key, { prNumber: 3 });
    await app.runner.drain();
    await fx.openPr(4, { 'web/c.css': 'c\n' });
    await app.service.tryPullRequest(ctx, key, { prNumber: 4, onQueue: true });
    const done = await ended(4);
    expect(done).toMatchObject({ state: 'passed', onQueue: true, prNumbers: [3, 4] });
    expect(await given('3-4')).toEqual([expect.any(String), fx.baseSha, '3,4', 'api/b.go', 'web/c.css']);
    expect(await fx.readFile(done.testSha!, 'api/b.go')).toBe('b\n');
  });

  it('is cancelled by a push to the PR, and one PR has one try at a time', async () => {
    const head = await fx.openPr(5, { SLOW: 'x\n' });
    await app.service.tryPullRequest(ctx, key, { prNumber: 5 });
    await expect(app.service.tryPullRequest(ctx, key, { prNumber: 5 })).rejects.toMatchObject({
      code: 'TRY_IN_PROGRESS',
    });
    const running = path.join(fx.root, '5.txt.running');
    await waitUntil('the try of #5 to run', 20_000, async () =>
      (await readFile(running).then(
        () => true,
        () => false,
      ))
        ? true
        : undefined,
    );

    const pushed = await fx.commit(head, { 'web/d.css': 'd\n' }, 'more');
    await fx.setRef('refs/pull/5/head', pushed);
    await app.service.notifyRefsMoved(ctx, {
      repo: key.repo,
      refs: [{ ref: 'refs/pull/5/head', oldSha: head, newSha: pushed }],
    });
    const done = await ended(5);
    expect(done.state).toBe('cancelled');
    expect(done.detail).toContain('the pull request was pushed to');
    expect(comments).toEqual([
      { pr: 5, body: expect.stringContaining('was cancelled: the pull request was pushed to') },
    ]);
    expect(await tryBranches()).toEqual([]);
    // A new try of the new head can be asked for.
    expect(await app.service.tryPullRequest(ctx, key, { prNumber: 5 })).toMatchObject({ headSha: pushed });
  });

  it('is asked for by a `/greenline try` comment', async () => {
    await fx.openPr(6, { 'web/e.css': 'e\n' });
    const found = await findRepoAndQueue(db, key.repo, 'main');
    await app.forgeObservations.apply(found!.repo, [found!.queue!], {
      kind: 'prComment',
      prNumber: 6,
      command: { kind: 'try', onQueue: false },
      author: 'octo',
    });
    expect(await ended(6)).toMatchObject({ state: 'passed', requestedBy: 'octo' });
  });

  it('refuses a try in words where none can run', async () => {
    await expect(app.service.tryPullRequest(ctx, key, { prNumber: 99 })).rejects.toMatchObject({
      code: 'PR_NOT_FOUND',
    });
    await expect(app.service.getPullRequestTry(ctx, key, 99)).resolves.toBeNull();
  });
});
