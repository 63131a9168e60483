/** MergeQueueService: every method and its error paths (contract §2), over the real store. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import type { PriorityName } from '../../src/engine/types.js';
import { V1_ERRORS } from '../../src/api/v1/error-status.js';
import { ServiceError } from '../../src/lib/errors.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

beforeEach(async () => {
  ({ t, ctx, key } = await createQueueFixture({ queue: null }));
});
afterEach(() => t.close());

async function serviceError(p: Promise<unknown>): Promise<ServiceError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return err as ServiceError;
}

async function expectError(
  p: Promise<unknown>,
  code: string,
  status: number,
  message?: RegExp | string,
): Promise<void> {
  const err = await serviceError(p);
  // The status is the v1 wire's for the code (src/api/v1/error-status.ts).
  expect({ code: err.code, status: V1_ERRORS[err.code][0] }).toEqual({ code, status });
  if (message) expect(err.message).toMatch(message);
}

async function withQueue(config = {}): Promise<void> {
  await t.service.createQueue(ctx, key, config);
}

async function submit(n: number, extra: Partial<{ priority: number | PriorityName | null; noBatch: boolean }> = {}) {
  if (!t.forge.state(REPO).prs.has(n)) t.forge.openPr(REPO, { number: n });
  await t.service.submitPullRequest(ctx, key, { prNumber: n, ...extra });
}

const entry = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry;

describe('authenticate', () => {
  it('resolves a token to its org', async () => {
    const { token } = await t.createOrg('beta');
    expect(await t.service.authenticate(token)).toMatchObject({ orgName: 'beta' });
    expect(await t.service.authenticate('gl_nope')).toBeNull();
  });
});

describe('createQueue / getQueue', () => {
  it('creates a RUNNING single queue with the API defaults and reads the target head', async () => {
    await t.service.createQueue(ctx, key, {});
    const v = await t.service.getQueue(ctx, key);
    expect(v.snapshot.state).toBe('RUNNING');
    expect(v.snapshot.config).toMatchObject({
      mode: 'single',
      concurrency: 1,
      testingTimeoutMinutes: 300,
      requiredStatuses: null,
    });
    expect(v.snapshot.targetSha).toBe(t.forge.state(REPO).branches.get('main'));
    expect(v.enqueued).toEqual([]);
  });

  it('takes mode and concurrency', async () => {
    await t.service.createQueue(ctx, key, { mode: 'parallel', concurrency: 5 });
    expect((await t.service.getQueue(ctx, key)).snapshot.config).toMatchObject({ mode: 'parallel', concurrency: 5 });
  });

  it("409 when the queue exists, 404 for an unknown or another org's repo, 400 for bad settings", async () => {
    await t.service.createQueue(ctx, key, {});
    await expectError(
      t.service.createQueue(ctx, key, {}),
      'QUEUE_EXISTS',
      409,
      'A merge queue already exists for branch "main" in this repository',
    );
    await expectError(
      t.service.createQueue(ctx, t.key('github.com/acme/nope'), {}),
      'REPO_NOT_FOUND',
      404,
      /github.com\/acme\/nope/,
    );
    const { ctx: other } = await t.createOrg('other');
    await expectError(t.service.createQueue(other, t.key(REPO, 'dev'), {}), 'REPO_NOT_FOUND', 404);
    await expectError(t.service.getQueue(other, key), 'REPO_NOT_FOUND', 404);
    await expectError(
      t.service.createQueue(ctx, t.key(REPO, 'dev'), { concurrency: 0 }),
      'VALIDATION_FAILED',
      400,
      /concurrency/,
    );
    for (const bad of ['', 'a..b', 'feature/', '-x', 'has space', 'x.lock', 'a:b']) {
      await expectError(
        t.service.createQueue(ctx, t.key(REPO, bad), {}),
        'VALIDATION_FAILED',
        400,
        /targetBranch .* is not a valid branch name/,
      );
    }
    await expectError(
      t.service.createQueue(ctx, t.key(REPO, 'release/2026.1'), {}),
      'TARGET_BRANCH_NOT_FOUND',
      400,
      'No branch release/2026.1 in github.com/acme/web: create it first, or check the name',
    );
    t.forge.pushToBranch(REPO, 'release/2026.1');
    await t.service.createQueue(ctx, t.key(REPO, 'release/2026.1'), {});
  });

  it('getQueue: 404 for a missing queue; lists admitted PRs in queue order, NOT_READY excluded', async () => {
    await expectError(t.service.getQueue(ctx, key), 'QUEUE_NOT_FOUND', 404, 'No merge queue exists for branch "main"');
    await withQueue();
    t.forge.openPr(REPO, { number: 9, mergeability: 'not_mergeable' });
    await submit(9);
    await submit(1);
    await t.runEffects();
    await submit(2, { priority: 'low' });
    await submit(3, { priority: 'high' });
    const v = await t.service.getQueue(ctx, key);
    // #1 took the only test slot; the others wait by priority.
    expect(v.enqueued.map((e) => [e.prNumber, e.state])).toEqual([
      [1, 'TESTING'],
      [3, 'PENDING'],
      [2, 'PENDING'],
    ]);
    expect(v.enqueued.some((e) => e.prNumber === 9)).toBe(false);
    expect(v.snapshot.entries.find((e) => e.prNumber === 9)?.state).toBe('NOT_READY');
  });
});

describe('updateQueue', () => {
  beforeEach(() => withQueue());

  it('patches settings, keeps the others, and returns the view', async () => {
    const v = await t.service.updateQueue(ctx, key, { concurrency: 3, batch: true });
    expect(v.snapshot.config).toMatchObject({
      concurrency: 3,
      batch: true,
      mode: 'single',
      testingTimeoutMinutes: 300,
    });
    const again = await t.service.updateQueue(ctx, key, { concurrency: 3, batch: true });
    expect(again.snapshot.config).toEqual(v.snapshot.config);
  });

  it('requiredStatuses: [] sets an empty override, deleteRequiredStatuses clears it', async () => {
    await t.service.updateQueue(ctx, key, { requiredStatuses: ['build'] });
    expect((await t.service.updateQueue(ctx, key, { requiredStatuses: [] })).snapshot.config.requiredStatuses).toEqual(
      [],
    );
    expect(
      (await t.service.updateQueue(ctx, key, { deleteRequiredStatuses: true })).snapshot.config.requiredStatuses,
    ).toBeNull();
  });

  it('sets the queue state', async () => {
    expect((await t.service.updateQueue(ctx, key, { state: 'PAUSED' })).snapshot.state).toBe('PAUSED');
    expect((await t.service.updateQueue(ctx, key, { state: 'RUNNING' })).snapshot.state).toBe('RUNNING');
  });

  it('400 for bad values, 404 for a missing queue', async () => {
    await expectError(
      t.service.updateQueue(ctx, key, { testingTimeoutMinutes: 0 }),
      'VALIDATION_FAILED',
      400,
      /testingTimeoutMinutes/,
    );
    await expectError(
      t.service.updateQueue(ctx, key, { state: 'SWITCHING_MODES' as never }),
      'VALIDATION_FAILED',
      400,
      /state/,
    );
    await expectError(t.service.updateQueue(ctx, t.key(REPO, 'dev'), { concurrency: 2 }), 'QUEUE_NOT_FOUND', 404);
  });
});

describe('deleteQueue', () => {
  beforeEach(() => withQueue());

  it('refuses while PRs are in the queue, NOT_READY included, naming how many', async () => {
    t.forge.openPr(REPO, { number: 4, mergeability: 'not_mergeable' });
    await submit(4);
    await submit(7);
    await expectError(
      t.service.deleteQueue(ctx, key),
      'QUEUE_NOT_EMPTY',
      400,
      'The queue still holds 2 pull requests (#4, #7)',
    );
    await t.service.cancelPullRequest(ctx, key, 4);
    await expectError(t.service.deleteQueue(ctx, key), 'QUEUE_NOT_EMPTY', 400, /holds 1 pull request \(#7\)/);
  });

  it('deletes an empty queue; then it is 404', async () => {
    await submit(1);
    await t.service.cancelPullRequest(ctx, key, 1);
    await t.service.deleteQueue(ctx, key);
    await expectError(t.service.getQueue(ctx, key), 'QUEUE_NOT_FOUND', 404);
    await expectError(t.service.deleteQueue(ctx, key), 'QUEUE_NOT_FOUND', 404);
    await t.service.createQueue(ctx, key, {});
  });
});

describe('submitPullRequest', () => {
  beforeEach(() => withQueue());

  it('404 when the PR does not exist on the forge, or the queue does not exist', async () => {
    await expectError(
      t.service.submitPullRequest(ctx, key, { prNumber: 42 }),
      'PR_NOT_FOUND',
      404,
      'Pull request #42 does not exist in acme/web',
    );
    t.forge.openPr(REPO, { number: 1 });
    await expectError(t.service.submitPullRequest(ctx, t.key(REPO, 'dev'), { prNumber: 1 }), 'QUEUE_NOT_FOUND', 404);
    await expectError(t.service.submitPullRequest(ctx, key, { prNumber: 0 }), 'VALIDATION_FAILED', 400, /pr.number/);
  });

  it('400 PR_ALREADY_MERGED for a PR the forge reports already in the target; nothing is queued', async () => {
    t.forge.openPr(REPO, { number: 3, alreadyInBase: true });
    await expectError(
      t.service.submitPullRequest(ctx, key, { prNumber: 3 }),
      'PR_ALREADY_MERGED',
      400,
      /PR #3 is already merged: .* into main changes nothing/,
    );
    await expectError(t.service.getSubmittedPullRequest(ctx, key, { number: 3 }), 'PR_NOT_SUBMITTED', 404);
  });

  it('reads the target head again when the queue was idle, so the first run starts on the current head', async () => {
    const head = t.forge.pushToBranch(REPO, 'main');
    await submit(1);
    await t.runEffects();
    const { run } = await t.service.getTestingDetails(ctx, key, (await entry(1)).runId!);
    expect(run.baseSha).toBe(head);
  });

  it('records the PR as the forge reports it, with its priority', async () => {
    t.forge.openPr(REPO, { number: 5, title: 'Add login', author: 'ada' });
    await submit(5, { priority: 'high', noBatch: true });
    const e = await entry(5);
    expect(e).toMatchObject({
      prNumber: 5,
      title: 'Add login',
      author: 'ada',
      priorityName: 'high',
      priorityValue: 10,
      noBatch: true,
      trip: 1,
    });
    expect(e.headSha).toBe(t.forge.state(REPO).prs.get(5)!.headSha);
  });

  it('takes priorities as names in any case, integers 0-255 or decimal strings; refuses others naming the value', async () => {
    await submit(1, { priority: 'HIGH' as never });
    expect(await entry(1)).toMatchObject({ priorityValue: 10, priorityName: 'high' });
    await submit(2, { priority: '42' as never });
    expect(await entry(2)).toMatchObject({ priorityValue: 42 });
    await submit(3, { priority: 0 });
    expect(await entry(3)).toMatchObject({ priorityValue: 0, priorityName: 'urgent', skipTheLine: true });
    await submit(4);
    expect(await entry(4)).toMatchObject({ priorityName: 'medium', usedDefaultPriorityName: 'medium' });
    t.forge.openPr(REPO, { number: 5 });
    await expectError(
      t.service.submitPullRequest(ctx, key, { prNumber: 5, priority: 'soon' as never }),
      'VALIDATION_FAILED',
      400,
      /priority "soon"/,
    );
    await expectError(
      t.service.submitPullRequest(ctx, key, { prNumber: 5, priority: 300 }),
      'VALIDATION_FAILED',
      400,
      /priority 300/,
    );
    await expectError(t.service.getSubmittedPullRequest(ctx, key, { number: 5 }), 'PR_NOT_SUBMITTED', 404);
  });

  it('resubmitting updates the priority in place; after a terminal state starts a new trip with the same id', async () => {
    await submit(1, { priority: 'low' });
    const first = await entry(1);
    await submit(1, { priority: 'high' });
    expect(await entry(1)).toMatchObject({ id: first.id, trip: 1, priorityName: 'high' });
    await t.service.cancelPullRequest(ctx, key, 1);
    await submit(1);
    const again = await entry(1);
    expect(again).toMatchObject({ id: first.id, trip: 2 });
    expect(again.state).not.toBe('CANCELLED');
  });

  it('applies impacted targets uploaded earlier for the PR head', async () => {
    await t.service.updateQueue(ctx, key, { mode: 'parallel' });
    const pr = t.forge.openPr(REPO, { number: 3 });
    await t.service.setImpactedTargets(ctx, key, { prNumber: 3, sha: pr.headSha, targets: ['//app:web'] });
    await submit(3);
    const view = await t.service.getSubmittedPullRequest(ctx, key, { number: 3 });
    expect(view.entry.impactedTargets).toEqual(['//app:web']);
    expect(view.readiness).toMatchObject({ hasImpactedTargets: true, requiresImpactedTargets: true });
    expect(view.entry.state).not.toBe('NOT_READY');
  });
});

describe('cancelPullRequest / restartTestsOnPullRequest', () => {
  beforeEach(() => withQueue());

  it('cancel moves the PR to CANCELLED; a PR not in the queue is a 400', async () => {
    await submit(1);
    await t.service.cancelPullRequest(ctx, key, 1);
    expect((await entry(1)).state).toBe('CANCELLED');
    await expectError(t.service.cancelPullRequest(ctx, key, 1), 'PR_NOT_IN_QUEUE', 400);
    await expectError(t.service.cancelPullRequest(ctx, key, 77), 'PR_NOT_IN_QUEUE', 400);
  });

  it('restart re-tests a TESTING PR with a new run; elsewhere it is refused', async () => {
    await submit(1);
    await t.runEffects();
    const before = await entry(1);
    expect(before.state).toBe('TESTING');
    await t.service.restartTestsOnPullRequest(ctx, key, 1);
    await t.runEffects();
    const after = await entry(1);
    expect(after.state).toBe('TESTING');
    expect(after.runId).not.toBe(before.runId);

    await t.service.updateQueue(ctx, key, { state: 'PAUSED' });
    await submit(2);
    await expectError(t.service.restartTestsOnPullRequest(ctx, key, 2), 'RESTART_NOT_ALLOWED', 400);
    await expectError(t.service.restartTestsOnPullRequest(ctx, key, 99), 'PR_NOT_IN_QUEUE', 400);
  });
});

describe('getSubmittedPullRequest', () => {
  beforeEach(() => withQueue());

  it('404 PR_NOT_SUBMITTED for a PR never submitted, by number or by head branch', async () => {
    t.forge.openPr(REPO, { number: 1, headBranch: 'feature' });
    await expectError(t.service.getSubmittedPullRequest(ctx, key, { number: 1 }), 'PR_NOT_SUBMITTED', 404, /#1/);
    await expectError(
      t.service.getSubmittedPullRequest(ctx, key, { branch: 'feature' }),
      'PR_NOT_SUBMITTED',
      404,
      /from branch "feature"/,
    );
  });

  it('by head branch: the PR from it still in the queue, else the one that left the queue last', async () => {
    t.forge.openPr(REPO, { number: 1, headBranch: 'feature' });
    t.forge.openPr(REPO, { number: 2, headBranch: 'feature' });
    t.forge.openPr(REPO, { number: 3, headBranch: 'other' });
    const byBranch = async (branch: string) =>
      (await t.service.getSubmittedPullRequest(ctx, key, { branch })).entry.prNumber;
    await submit(1);
    await submit(3);
    expect(await byBranch('feature')).toBe(1);
    expect(await byBranch('other')).toBe(3);
    await t.service.cancelPullRequest(ctx, key, 1);
    t.clock.advance(1000);
    await submit(2);
    expect(await byBranch('feature')).toBe(2); // open beats closed
    t.clock.advance(1000);
    await t.service.cancelPullRequest(ctx, key, 2);
    expect(await byBranch('feature')).toBe(2); // both closed: the latest to leave
    t.clock.advance(1000);
    await submit(1);
    t.clock.advance(1000);
    await t.service.cancelPullRequest(ctx, key, 1);
    expect(await byBranch('feature')).toBe(1);
    await expectError(t.service.getSubmittedPullRequest(ctx, key, { branch: 'nope' }), 'PR_NOT_SUBMITTED', 404);
  });

  it("404 for an unknown repository, another org's repository, or a branch without a queue", async () => {
    await submit(1);
    await expectError(
      t.service.getSubmittedPullRequest(ctx, t.key('github.com/acme/nope'), { number: 1 }),
      'REPO_NOT_FOUND',
      404,
      /acme\/nope/,
    );
    const { ctx: other } = await t.createOrg('beta');
    await expectError(t.service.getSubmittedPullRequest(other, key, { number: 1 }), 'REPO_NOT_FOUND', 404);
    await expectError(
      t.service.getSubmittedPullRequest(ctx, t.key(REPO, 'dev'), { number: 1 }),
      'QUEUE_NOT_FOUND',
      404,
      /"dev"/,
    );
    await expectError(
      t.service.getSubmittedPullRequest(ctx, t.key(REPO, 'dev'), { branch: 'feature' }),
      'QUEUE_NOT_FOUND',
      404,
    );
    expect((await entry(1)).prNumber).toBe(1);
  });

  it("reads the queue's settings as they are now", async () => {
    // Not ready (another base branch), so not admitted: the mode changes at once.
    t.forge.openPr(REPO, { number: 1, baseBranch: 'dev' });
    await submit(1);
    expect((await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).readiness.requiresImpactedTargets).toBe(
      false,
    );
    await t.service.updateQueue(ctx, key, { mode: 'parallel' });
    expect((await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).readiness.requiresImpactedTargets).toBe(
      true,
    );
  });

  it('reports readiness and whether the PR is still in the queue', async () => {
    t.forge.openPr(REPO, { number: 2, baseBranch: 'dev', mergeability: 'in_progress' });
    await submit(2);
    let v = await t.service.getSubmittedPullRequest(ctx, key, { number: 2 });
    expect(v.readiness).toEqual({
      hasImpactedTargets: false,
      requiresImpactedTargets: false,
      doesBaseBranchMatch: false,
      mergeability: 'in_progress',
    });
    expect(v.isCurrentlySubmittedToQueue).toBe(true);
    await t.service.cancelPullRequest(ctx, key, 2);
    v = await t.service.getSubmittedPullRequest(ctx, key, { number: 2 });
    expect(v.isCurrentlySubmittedToQueue).toBe(false);
    expect(v.entry.state).toBe('CANCELLED');
  });
});

describe('listPullRequests', () => {
  beforeEach(() => withQueue());

  it('pages with an opaque cursor, newest submission first', async () => {
    for (const n of [1, 2, 3, 4, 5]) {
      await submit(n);
      t.clock.advance(1000);
    }
    const p1 = await t.service.listPullRequests(ctx, key, { take: 2 });
    expect(p1.items.map((e) => e.prNumber)).toEqual([5, 4]);
    const p2 = await t.service.listPullRequests(ctx, key, { take: 2, cursor: p1.nextCursor! });
    expect(p2.items.map((e) => e.prNumber)).toEqual([3, 2]);
    const p3 = await t.service.listPullRequests(ctx, key, { take: 2, cursor: p2.nextCursor! });
    expect(p3.items.map((e) => e.prNumber)).toEqual([1]);
    expect(p3.nextCursor).toBeUndefined();
  });

  it('filters by state and by conclusion time', async () => {
    await submit(1);
    await submit(2);
    t.clock.advance(5000);
    const cancelAt = t.clock.now();
    await t.service.cancelPullRequest(ctx, key, 2);
    expect(
      (await t.service.listPullRequests(ctx, key, { take: 10, state: 'CANCELLED' })).items.map((e) => e.prNumber),
    ).toEqual([2]);
    expect(
      (await t.service.listPullRequests(ctx, key, { take: 10, since: cancelAt })).items.map((e) => e.prNumber),
    ).toEqual([2]);
    expect((await t.service.listPullRequests(ctx, key, { take: 10, since: cancelAt + 1 })).items).toEqual([]);
  });

  it('400 for a bad take, state or cursor', async () => {
    await expectError(t.service.listPullRequests(ctx, key, { take: 0 }), 'VALIDATION_FAILED', 400, /take/);
    await expectError(t.service.listPullRequests(ctx, key, { take: 101 }), 'VALIDATION_FAILED', 400, /take/);
    await expectError(
      t.service.listPullRequests(ctx, key, { take: 5, state: 'DONE' as never }),
      'VALIDATION_FAILED',
      400,
      /state/,
    );
    await expectError(
      t.service.listPullRequests(ctx, key, { take: 5, cursor: '00000000-0000-4000-8000-000000000000' }),
      'VALIDATION_FAILED',
      400,
      /cursor/,
    );
  });
});

describe('setImpactedTargets', () => {
  beforeEach(() => withQueue({ mode: 'parallel' }));

  it('is accepted for a PR that was never submitted, and for an unknown queue branch of a connected repo', async () => {
    await t.service.setImpactedTargets(ctx, key, { prNumber: 8, sha: 'abc', targets: 'ALL' });
    await t.service.setImpactedTargets(ctx, t.key(REPO, 'other'), { prNumber: 8, sha: 'abc', targets: [] });
  });

  it('applies to a queued PR at that head sha only; the last upload wins', async () => {
    const pr = t.forge.openPr(REPO, { number: 1 });
    await submit(1);
    expect((await entry(1)).state).toBe('NOT_READY');
    await t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: 'other-sha', targets: ['x'] });
    expect((await entry(1)).impactedTargets).toBeNull();
    await t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: pr.headSha, targets: ['a'] });
    await t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: pr.headSha, targets: ['b'] });
    const e = await entry(1);
    expect(e.impactedTargets).toEqual(['b']);
    expect(e.state).not.toBe('NOT_READY');
  });

  it('404 for a repo outside the org; 400 for bad input', async () => {
    await expectError(
      t.service.setImpactedTargets(ctx, t.key('github.com/x/y'), { prNumber: 1, sha: 'a', targets: [] }),
      'REPO_NOT_FOUND',
      404,
    );
    await expectError(
      t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: '', targets: [] }),
      'VALIDATION_FAILED',
      400,
      /pr.sha/,
    );
    await expectError(
      t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: 'a', targets: [1] as never }),
      'VALIDATION_FAILED',
      400,
      /impactedTargets/,
    );
  });
});

describe('getTestingDetails, reportStatus, getTestRunLog', () => {
  beforeEach(() => withQueue());

  it('describes a run: branch, statuses, tested PRs, required statuses and their source', async () => {
    const pr = t.forge.openPr(REPO, { number: 1, title: 'Fix bug' });
    await t.service.setImpactedTargets(ctx, key, { prNumber: 1, sha: pr.headSha, targets: ['//a', '//b'] });
    await submit(1);
    await t.runEffects();
    const runId = (await entry(1)).runId!;
    await t.ci.report(runId, 'pending');
    const d = await t.service.getTestingDetails(ctx, key, runId);
    expect(d.run).toMatchObject({ id: runId, prNumbers: [1], status: 'in_progress' });
    expect(d.run.testSha).toBe(t.forge.state(REPO).branches.get(d.run.testBranch));
    expect(d).toMatchObject({
      requiredStatuses: ['greenline/ci'],
      requiredStatusesSource: 'trunk_config',
      statuses: [{ context: 'greenline/ci', state: 'pending' }],
      testedPullRequests: [{ prNumber: 1, title: 'Fix bug' }],
      impactedTargets: ['//a', '//b'],
      impactedTargetsForTestedPrs: ['//a', '//b'],
    });
    await expectError(t.service.getTestingDetails(ctx, key, 'nope'), 'TEST_RUN_NOT_FOUND', 404);
  });

  it('external CI reports by sha or run id; the queue override decides which statuses count', async () => {
    await t.connectRepo('acme', 'github.com/acme/api', { ciCommand: null });
    const api = t.key('github.com/acme/api');
    await t.service.createQueue(ctx, api, {});
    await t.service.updateQueue(ctx, api, { requiredStatuses: ['build', 'lint'] });
    t.forge.openPr('github.com/acme/api', { number: 1 });
    await t.service.submitPullRequest(ctx, api, { prNumber: 1 });
    await t.runEffects();
    expect(t.ci.started).toEqual([]);
    const { run } = await t.service.getTestingDetails(
      ctx,
      api,
      (await t.service.getSubmittedPullRequest(ctx, api, { number: 1 })).entry.runId!,
    );
    expect((await t.service.getTestingDetails(ctx, api, run.id)).requiredStatusesSource).toBe('merge_instance');

    await t.service.reportStatus(ctx, {
      repo: api.repo,
      sha: run.testSha!,
      status: { context: 'build', state: 'success' },
    });
    await t.service.reportStatus(ctx, {
      repo: api.repo,
      testRunId: run.id,
      status: { context: 'coverage', state: 'failure' },
    });
    await t.runEffects();
    expect((await t.service.getSubmittedPullRequest(ctx, api, { number: 1 })).entry.state).toBe('TESTING');
    await t.service.reportStatus(ctx, {
      repo: api.repo,
      testRunId: run.id,
      status: { context: 'lint', state: 'success', url: 'http://ci/2' },
    });
    await t.runEffects();
    expect((await t.service.getSubmittedPullRequest(ctx, api, { number: 1 })).entry.state).toBe('MERGED');
  });

  it('a run with no resolvable required statuses fails START_TEST_RUN_NO_REQUIRED_STATUSES', async () => {
    await t.connectRepo('acme', 'github.com/acme/docs', { ciCommand: null });
    const docs = t.key('github.com/acme/docs');
    await t.service.createQueue(ctx, docs, {});
    t.forge.openPr('github.com/acme/docs', { number: 1 });
    await t.service.submitPullRequest(ctx, docs, { prNumber: 1 });
    await t.runEffects();
    const e = (await t.service.getSubmittedPullRequest(ctx, docs, { number: 1 })).entry;
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('START_TEST_RUN_NO_REQUIRED_STATUSES');
  });

  it("reportStatus: 400 for bad input, 404 for an unknown run or another repo's run", async () => {
    await submit(1);
    await t.runEffects();
    const runId = (await entry(1)).runId!;
    const status = { context: 'build', state: 'success' as const };
    await expectError(
      t.service.reportStatus(ctx, { repo: key.repo, status }),
      'VALIDATION_FAILED',
      400,
      /testRunId or sha/,
    );
    await expectError(
      t.service.reportStatus(ctx, {
        repo: key.repo,
        testRunId: runId,
        status: { context: 'b', state: 'done' as never },
      }),
      'VALIDATION_FAILED',
      400,
      /state/,
    );
    await expectError(
      t.service.reportStatus(ctx, { repo: key.repo, testRunId: runId, status: { context: '', state: 'success' } }),
      'VALIDATION_FAILED',
      400,
      /context/,
    );
    await expectError(
      t.service.reportStatus(ctx, { repo: key.repo, testRunId: 'nope', status }),
      'TEST_RUN_NOT_FOUND',
      404,
    );
    await t.connectRepo('acme', 'github.com/acme/api');
    await expectError(
      t.service.reportStatus(ctx, { repo: t.key('github.com/acme/api').repo, testRunId: runId, status }),
      'TEST_RUN_NOT_FOUND',
      404,
    );
  });

  it('getTestRunLog returns the CI log, null when none, 404 for an unknown run', async () => {
    await submit(1);
    await t.runEffects();
    const runId = (await entry(1)).runId!;
    expect(await t.service.getTestRunLog(ctx, key, runId)).toBeNull();
    t.ci.logs.set(runId, 'ok 1 - tests\n');
    expect(await t.service.getTestRunLog(ctx, key, runId)).toBe('ok 1 - tests\n');
    await expectError(t.service.getTestRunLog(ctx, key, 'nope'), 'TEST_RUN_NOT_FOUND', 404);
  });
});
