/** The effect runner end to end: real service and store, fake forge and CI, a manual clock. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { ForgeRateLimitedError } from '../../src/forge/port.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { leaseEffects, listEffects, selectDueEffectIds } from '../../src/store/effects.js';
import { listQueueEvents } from '../../src/store/queue-events.js';
import { testDatabases } from '../helpers/databases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

const databases = await testDatabases();

const stateOf = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry;
const runOf = async (n: number) => (await stateOf(n)).runId!;
const queueId = async () => (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;

async function submitAndStartCi(n: number): Promise<string> {
  t.forge.openPr(REPO, { number: n });
  await t.service.submitPullRequest(ctx, key, { prNumber: n });
  await t.runEffects();
  const runId = await runOf(n);
  expect(t.ci.startedRunIds()).toContain(runId);
  return runId;
}

describe.each(databases)('effect runner on $name', (database) => {
  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url() }));
  });
  afterEach(() => t.close());

  it('submit → test branch → CI → pass → merged onto the fake target, test branch deleted', async () => {
    const runId = await submitAndStartCi(1);
    expect((await stateOf(1)).state).toBe('TESTING');
    const started = t.ci.started.find((s) => s.runId === runId)!;
    expect(started).toMatchObject({
      targetBranch: 'main',
      prNumbers: [1],
      branch: expect.stringMatching(new RegExp(`^greenline-merge/pr-1/${runId}$`)),
    });
    expect(t.forge.prsOnBranch(REPO, started.branch)).toEqual([1]);

    await t.ci.pass(runId);
    await t.runEffects();
    expect((await stateOf(1)).state).toBe('MERGED');
    expect(t.forge.prsOnBranch(REPO, 'main')).toEqual([1]);
    expect(t.forge.state(REPO).branches.has(started.branch)).toBe(false);
    expect(t.forge.state(REPO).prs.get(1)!.state).toBe('merged');
    const types = (await listQueueEvents(t.db, await queueId())).map((e) => e.type);
    expect(types).toContain('pull_request.submitted');
    expect(types).toContain('pull_request.testing');
    expect(types.at(-1)).toBe('pull_request.merged');
  });

  it('a failing required status fails the PR and leaves the target alone', async () => {
    const runId = await submitAndStartCi(1);
    const before = t.forge.state(REPO).branches.get('main');
    await t.ci.fail(runId);
    await t.runEffects();
    const e = await stateOf(1);
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(t.forge.state(REPO).branches.get('main')).toBe(before);
  });

  it('a merge conflict while building the test branch fails the PR', async () => {
    t.forge.state(REPO).conflicting.add(1);
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const e = await stateOf(1);
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('START_TEST_RUN_MERGE_CONFLICT');
    expect(t.ci.started).toEqual([]);
  });

  it('retries a thrown error after the stored backoff, without a timer', async () => {
    t.forge.failNext('createTestBranch');
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const effect = (await listEffects(t.db, await queueId())).find((e) => e.kind === 'createTestBranch')!;
    expect(effect).toMatchObject({ status: 'pending', attempts: 1, last_error: 'injected createTestBranch failure' });
    // The first retry waits 10 s, spread by the retry policy's jitter to [5 s, 15 s).
    expect(effect.run_at).toBeGreaterThanOrEqual(t.clock.now() + 5_000);
    expect(effect.run_at).toBeLessThan(t.clock.now() + 15_000);
    expect(t.ci.started).toEqual([]);

    t.clock.advance(effect.run_at - t.clock.now() - 1);
    await t.runEffects();
    expect(t.ci.started).toEqual([]);

    t.clock.advance(1);
    await t.runEffects();
    expect(t.ci.startedRunIds()).toEqual([await runOf(1)]);
  });

  it('a rate-limited forge postpones the effect to the time it names, its attempts not counted', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    const builds = () => t.forge.calls.filter((c) => c.startsWith('createTestBranch')).length;
    // More rate limits in a row than the retry budget has attempts (see the test below): none counts.
    for (let i = 1; i <= 5; i++) {
      const retryAt = t.clock.now() + 120_000;
      t.forge.failNext(
        'createTestBranch',
        new ForgeRateLimitedError(`the forge rate-limited greenline (${i})`, retryAt),
      );
      await t.runEffects();
      expect(builds()).toBe(i);
      const effect = (await listEffects(t.db, await queueId())).find((e) => e.kind === 'createTestBranch')!;
      expect(effect).toMatchObject({
        status: 'pending',
        attempts: 0,
        run_at: retryAt,
        last_error: `the forge rate-limited greenline (${i})`,
      });
      t.clock.set(retryAt - 1);
      await t.runEffects();
      expect(builds()).toBe(i);
      t.clock.set(retryAt);
    }
    await t.runEffects();
    expect(builds()).toBe(6);
    expect((await stateOf(1)).state).toBe('TESTING');
  });

  it('tells the engine when the retry budget is spent', async () => {
    for (let i = 0; i < 4; i++) t.forge.failNext('createTestBranch');
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    for (let i = 0; i < 4; i++) {
      await t.runEffects();
      t.clock.advance(60_000);
    }
    await t.runEffects();
    const e = await stateOf(1);
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('START_TEST_RUN_RETRY_EXHAUSTED');
    expect((await listEffects(t.db, await queueId())).find((x) => x.kind === 'createTestBranch')?.status).toBe(
      'failed',
    );
  });

  it('scheduled wake-ups deliver ticks: a run past its testing timeout fails and its CI is cancelled', async () => {
    await t.service.updateQueue(ctx, key, { testingTimeoutMinutes: 1 });
    const runId = await submitAndStartCi(1);
    t.clock.advance(61_000);
    await t.runEffects();
    const e = await stateOf(1);
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('TEST_RUN_TIMEOUT');
    expect(t.ci.cancelled).toContain(runId);
  });

  it('is idempotent over a restart: work done before a crash is redone harmlessly and merged once', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    // A runner claims the createTestBranch effect, does the forge work, and dies before recording it.
    const id = await queueId();
    const claimed = (
      await t.db
        .transaction()
        .execute(async (trx) =>
          leaseEffects(trx, await selectDueEffectIds(trx, t.clock.now(), 10, id), t.clock.now() + 600_000),
        )
    ).find((e) => e.kind === 'createTestBranch');
    const effect = JSON.parse(claimed!.payload);
    await t.forge.createTestBranch(
      {
        id: 'x',
        org: 'x',
        repo: key.repo,
        forge: 'git',
        remote: null,
        prRefPattern: '',
        ciCommand: null,
        testBranchPrefix: '',
      },
      { branch: effect.branch, baseSha: effect.baseSha, prs: effect.prs },
    );
    await t.app.stop();

    // A new process over the same store: nothing is due until the dead runner's lease expires.
    const app = createApp({
      db: t.db,
      clock: t.clock,
      forges: { git: t.forge },
      pollIntervalMs: 60_000,
      createCi: (onStatus) => {
        t.ci.onStatus = onStatus;
        return t.ci;
      },
    });
    await app.runner.drain();
    expect(t.ci.started).toEqual([]);
    t.clock.advance(600_001);
    await app.runner.drain();
    const runId = (await app.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.runId!;
    expect(t.ci.startedRunIds()).toEqual([runId]);

    await t.ci.pass(runId);
    await app.runner.drain();
    await app.runner.drain();
    expect((await app.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.state).toBe('MERGED');
    expect(t.forge.calls.filter((c) => c.startsWith('advanceTarget'))).toHaveLength(1);
    expect(t.forge.prsOnBranch(REPO, 'main')).toEqual([1]);
    // Only the testing-timeout wake-up, due in the future, is still pending.
    expect(
      (await listEffects(t.db, await queueId()))
        .filter((e) => e.status !== 'done')
        .map((e) => [e.kind, e.run_at > t.clock.now()]),
    ).toEqual([['scheduleWakeup', true]]);
  });

  it('predictive testing: the second PR is tested on top of the first, both merge in order', async () => {
    await t.service.updateQueue(ctx, key, { concurrency: 2 });
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr(REPO, { number: 2 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    await t.runEffects();
    const [r1, r2] = [await runOf(1), await runOf(2)];
    const branch2 = t.ci.started.find((s) => s.runId === r2)!.branch;
    expect(t.forge.prsOnBranch(REPO, branch2)).toEqual([1, 2]);
    await t.ci.pass(r2);
    await t.ci.pass(r1);
    await t.runEffects();
    expect((await stateOf(1)).state).toBe('MERGED');
    expect((await stateOf(2)).state).toBe('MERGED');
    expect(t.forge.prsOnBranch(REPO, 'main')).toEqual([1, 2]);
  });

  it('once started, runs effects as soon as a commit adds them, and stops without leaving work behind', async () => {
    t.app.start();
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await expect.poll(() => t.ci.started.length, { timeout: 5_000, interval: 10 }).toBeGreaterThan(0);
    expect(t.ci.startedRunIds()).toEqual([await runOf(1)]);
    await t.app.stop();
    const count = t.forge.calls.length;
    await t.ci.pass(await runOf(1));
    // pass resolves once the result is recorded: its merge waits in the outbox, left alone by the stopped runner.
    const pending = (await listEffects(t.db, await queueId())).filter((e) => e.status === 'pending').map((e) => e.kind);
    expect(pending).toContain('merge');
    expect(t.forge.calls.length).toBe(count);
  });

  it('a slow forge for one repository holds up only its own queue', async () => {
    await t.connectRepo('acme', 'github.com/acme/api');
    const api = t.key('github.com/acme/api');
    await t.service.createQueue(ctx, api, {});
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const build = t.forge.createTestBranch.bind(t.forge);
    t.forge.createTestBranch = async (binding, req) => {
      if (binding.repo.name === 'web') await gate;
      return build(binding, req);
    };
    t.app.start();
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr('github.com/acme/api', { number: 7 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.service.submitPullRequest(ctx, api, { prNumber: 7 });
    await expect.poll(() => t.ci.started.length, { timeout: 5_000, interval: 10 }).toBeGreaterThan(0);
    expect(t.ci.started.map((s) => s.repo.repo.name)).toEqual(['api']);
    release();
    await expect.poll(() => t.ci.started.length, { timeout: 5_000, interval: 10 }).toBeGreaterThanOrEqual(2);
    expect(t.ci.started.map((s) => s.repo.repo.name)).toEqual(['api', 'web']);
    await t.app.stop();
  });
});
