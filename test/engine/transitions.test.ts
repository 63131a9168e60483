/**
 * One test per row of the transition table (contract §5.2): state, reason, timeline and effects.
 */
import { describe, expect, it } from 'vitest';
import { QueueDriver } from './queue-driver.js';

describe('(none)/terminal → NOT_READY (submit)', () => {
  it('creates the entry with reason and a submitted event', () => {
    const q = new QueueDriver();
    q.submit(1, { pr: { mergeability: 'unspecified' } });
    const e = q.entry(1);
    expect(e).toMatchObject({
      id: 'entry-1',
      trip: 1,
      state: 'NOT_READY',
      lastReason: 'API_REQUESTED',
      priorityName: 'medium',
      usedDefaultPriorityName: 'medium',
    });
    expect(e.timeline).toEqual([{ at: q.now, from: null, to: 'NOT_READY', reason: 'API_REQUESTED' }]);
    expect(q.eventTypes()).toEqual(['pull_request.submitted:1']);
  });

  it('a terminal PR submitted again starts a new trip with the same id and keeps its history', () => {
    const q = new QueueDriver();
    q.submit(1, { pr: { mergeability: 'unspecified' } });
    q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
    q.send({
      kind: 'submit',
      entryId: 'other-id',
      pr: { number: 1, headSha: 'h1b', baseBranch: 'main', title: 'PR 1', author: 'dev', mergeability: 'unspecified' },
      reason: 'USER_REQUESTED',
    });
    const e = q.entry(1);
    expect(e).toMatchObject({
      id: 'entry-1',
      trip: 2,
      state: 'NOT_READY',
      headSha: 'h1b',
      lastReason: 'USER_REQUESTED',
      runId: null,
    });
    expect(e.timeline.map((t) => `${t.from}>${t.to}`)).toEqual([
      'null>NOT_READY',
      'NOT_READY>CANCELLED',
      'CANCELLED>NOT_READY',
    ]);
  });
});

describe('NOT_READY → PENDING (admission)', () => {
  it('admits a ready PR when the queue is running (MERGE_ITEM_NOW_READY)', () => {
    const q = new QueueDriver();
    q.submit(1);
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'MERGE_ITEM_NOW_READY', admittedAt: q.now });
    expect(q.eventTypes()).toEqual(['pull_request.submitted:1', 'pull_request.queued:1']);
  });

  it.each([
    ['the base branch differs', { baseBranch: 'develop' }],
    ['the forge does not call it mergeable', { mergeability: 'in_progress' as const }],
    ['it conflicts', { mergeability: 'not_mergeable' as const }],
  ])('keeps it NOT_READY when %s', (_why, pr) => {
    const q = new QueueDriver();
    q.submit(1, { pr });
    expect(q.state(1)).toBe('NOT_READY');
    expect(q.effectsOf('createTestBranch')).toEqual([]);
  });

  it('admits once the forge reports it mergeable', () => {
    const q = new QueueDriver();
    q.submit(1, { pr: { mergeability: 'in_progress' } });
    q.send({
      kind: 'prObserved',
      pr: { number: 1, headSha: 'h1', baseBranch: 'main', title: 'PR 1', author: 'dev', mergeability: 'mergeable' },
    });
    expect(q.state(1)).toBe('PENDING');
  });

  it('admits a stacked PR once its base is retargeted to the queue branch', () => {
    const q = new QueueDriver();
    q.submit(1, { pr: { baseBranch: 'feature' } });
    q.send({
      kind: 'prObserved',
      pr: { number: 1, headSha: 'h1', baseBranch: 'main', title: 'PR 1', author: 'dev', mergeability: 'mergeable' },
    });
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', baseBranch: 'main' });
  });

  it('forceEnqueued skips the mergeability wait but not the base check', () => {
    const q = new QueueDriver();
    q.submit(1, { pr: { mergeability: 'not_mergeable' }, forceEnqueued: true });
    q.submit(2, { pr: { mergeability: 'not_mergeable', baseBranch: 'x' }, forceEnqueued: true });
    expect([q.state(1), q.state(2)]).toEqual(['PENDING', 'NOT_READY']);
  });

  it('parallel mode waits for impacted targets of the current head', () => {
    const q = new QueueDriver({ mode: 'parallel' });
    q.submit(1);
    expect(q.state(1)).toBe('NOT_READY');
    q.reject({ kind: 'impactedTargets', prNumber: 1, headSha: 'old', targets: ['a'] });
    q.send({ kind: 'impactedTargets', prNumber: 1, headSha: 'h1', targets: ['a'] });
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', impactedTargets: ['a'] });
  });

  it.each(['PAUSED', 'DRAINING'] as const)('a %s queue accepts submissions but admits nothing', (state) => {
    const q = new QueueDriver();
    q.send({ kind: 'setState', state });
    q.submit(1);
    expect(q.state(1)).toBe('NOT_READY');
    q.send({ kind: 'setState', state: 'RUNNING' });
    expect(q.state(1)).toBe('PENDING');
  });
});

describe('PENDING → TESTING', () => {
  it('builds a test branch, then starts CI and moves to TESTING', () => {
    const q = new QueueDriver({ testingTimeoutMinutes: 30, requiredStatuses: ['ci'] });
    q.submit(7);
    const create = q.effect('createTestBranch');
    expect(create).toEqual({
      kind: 'createTestBranch',
      key: 'r1:createTestBranch',
      runId: 'r1',
      branch: 'greenline-merge/pr-7/r1',
      baseSha: 'S0',
      prs: [{ number: 7, headSha: 'h7' }],
    });
    expect(q.entry(7)).toMatchObject({ state: 'PENDING', runId: 'r1' });
    q.built('r1');
    expect(q.entry(7)).toMatchObject({ state: 'TESTING', lastReason: 'TEST_RUN_STARTED' });
    expect(q.effect('startCi')).toMatchObject({
      runId: 'r1',
      sha: 't-r1',
      branch: 'greenline-merge/pr-7/r1',
      prNumbers: [7],
      requiredStatuses: ['ci'],
      timeoutMinutes: 30,
    });
    expect(q.events()[0]).toMatchObject({
      type: 'pull_request.testing',
      testBranch: 'greenline-merge/pr-7/r1',
      testBranchSha: 't-r1',
      isBisection: false,
      batched: false,
    });
  });

  it('starts no run while the target sha is unknown', () => {
    const q = new QueueDriver({}, null);
    q.submit(1);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.send({ kind: 'targetMoved', sha: 'S0' });
    expect(q.effect('createTestBranch').baseSha).toBe('S0');
  });

  it('tests each PR on top of every group ahead of it, up to the concurrency', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
    expect(q.run('r2').dependentPrs).toEqual([1]);
    q.submit(3);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    expect(q.state(3)).toBe('PENDING');
  });
});

describe('TESTING → TESTS_PASSED', () => {
  it('TEST_RUN_PASSED when its run succeeds', () => {
    const q = new QueueDriver();
    const run = q.startTesting(1);
    q.pass(run);
    expect(q.entry(1).timeline.at(-1)).toMatchObject({
      from: 'TESTING',
      to: 'TESTS_PASSED',
      reason: 'TEST_RUN_PASSED',
      runId: run,
    });
    expect(q.entry(1).verifiedByTestRun).toBe(run);
  });

  it('SUCCESSOR_TEST_RUN_PASSED under optimistic merging, and both merge in one step', () => {
    const q = new QueueDriver({ concurrency: 2, canOptimisticallyMerge: true });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    expect(q.entry(1)).toMatchObject({
      state: 'TESTS_PASSED',
      lastReason: 'SUCCESSOR_TEST_RUN_PASSED',
      verifiedByTestRun: 'r2',
    });
    expect(q.effect('cancelCi').runId).toBe('r1');
    expect(q.effect('merge')).toMatchObject({
      runId: 'r2',
      expectedTargetSha: 'S0',
      testSha: 't-r2',
      prs: [
        { number: 1, headSha: 'h1' },
        { number: 2, headSha: 'h2' },
      ],
    });
  });
});

describe('TESTING → PENDING_FAILURE', () => {
  it('a failed run fails its own PR once nothing is ahead (PENDING_FAILURE then FAILED)', () => {
    const q = new QueueDriver();
    const run = q.startTesting(1);
    q.fail(run);
    expect(
      q
        .entry(1)
        .timeline.slice(-2)
        .map((t) => `${t.to}:${t.reason}`),
    ).toEqual(['PENDING_FAILURE:TEST_RUN_REQUIRED_STATUS_FAILED', 'FAILED:TEST_RUN_REQUIRED_STATUS_FAILED']);
    expect(q.eventTypes()).toEqual(['pull_request.pending_failure:1', 'pull_request.failed:1']);
    expect(q.effect('deleteTestBranch')).toMatchObject({ runId: run, branch: 'greenline-merge/pr-1/r1' });
  });

  it('waits in PENDING_FAILURE while a predecessor is unresolved', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.fail('r2');
    expect(q.state(2)).toBe('PENDING_FAILURE');
    q.pass('r1');
    expect(q.state(2)).toBe('FAILED');
  });

  it('a test branch that cannot be built is a start failure (START_TEST_RUN_MERGE_CONFLICT)', () => {
    const q = new QueueDriver();
    q.submit(1);
    q.send({ kind: 'testBranchFailed', runId: 'r1', reason: 'START_TEST_RUN_MERGE_CONFLICT', detail: 'a.txt' });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'START_TEST_RUN_MERGE_CONFLICT' });
    expect(q.last(1).detail).toBe('a.txt');
  });

  it('a PR whose merge changes nothing fails (START_TEST_RUN_ALREADY_IN_TARGET), and the PR behind it is tested without it', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.send({
      kind: 'testBranchFailed',
      runId: 'r1',
      reason: 'START_TEST_RUN_ALREADY_IN_TARGET',
      detail: 'PR #1 changes nothing',
    });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'START_TEST_RUN_ALREADY_IN_TARGET' });
    expect(q.last(1).detail).toBe('PR #1 changes nothing');
    expect(q.state(2)).not.toBe('FAILED');
    expect(q.effects.some((e) => e.kind === 'createTestBranch' && e.prs.map((p) => p.number).join() === '2')).toBe(
      true,
    );
  });

  it('a run past the testing timeout fails with TEST_RUN_TIMEOUT and its CI is cancelled', () => {
    const q = new QueueDriver({ testingTimeoutMinutes: 10 });
    q.submit(1);
    const wake = q.effect('scheduleWakeup');
    expect(wake.at).toBe(q.now + 10 * 60_000);
    q.built('r1');
    q.send({ kind: 'tick', at: q.now + 5 * 60_000 });
    expect(q.state(1)).toBe('TESTING');
    q.send({ kind: 'tick', at: wake.at });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_TIMEOUT' });
    expect(q.effect('cancelCi').runId).toBe('r1');
  });
});

describe('TESTING → PENDING (restarts)', () => {
  it('TESTS_RESTARTED_BY_API_REQUEST: a new run in place, others untouched', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.send({ kind: 'restart', prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(q.entry(1).timeline.at(-1)).toMatchObject({
      from: 'TESTING',
      to: 'PENDING',
      reason: 'TESTS_RESTARTED_BY_API_REQUEST',
    });
    expect(q.effect('cancelCi').runId).toBe('r1');
    expect(q.effect('createTestBranch')).toMatchObject({ runId: 'r3', prs: [{ number: 1, headSha: 'h1' }] });
    expect(q.state(2)).toBe('TESTING');
    expect(q.entry(2).runId).toBe('r2');
  });

  it('PREREQUISITE_MERGE_ITEM_FAILED: a run that included the culprit retests without it', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.fail('r1');
    expect(q.state(1)).toBe('FAILED');
    expect(q.entry(2).timeline.at(-1)).toMatchObject({
      from: 'TESTING',
      to: 'PENDING',
      reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
    });
    expect(q.effect('createTestBranch').prs).toEqual([{ number: 2, headSha: 'h2' }]);
    expect(q.effectsOf('cancelCi').map((e) => e.runId)).toEqual(['r2']);
  });

  it('PREREQUISITE_MERGE_ITEM_CANCELLED when a PR ahead is cancelled', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.send({ kind: 'cancel', prNumber: 1, reason: 'API_REQUESTED' });
    expect(q.entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'API_REQUESTED' });
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_CANCELLED' });
    expect(
      q
        .effectsOf('cancelCi')
        .map((e) => e.runId)
        .sort(),
    ).toEqual(['r1', 'r2']);
  });

  it('PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED when a PR ahead is merged outside the queue', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.send({ kind: 'prMergedOutside', prNumber: 1 });
    expect(q.entry(1)).toMatchObject({ state: 'MERGED', lastReason: 'MANUAL_MERGE' });
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED' });
  });

  it('MANUAL_PUSH_TO_TARGET_BRANCH: every run restarts on the new head', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.send({ kind: 'targetMoved', sha: 'S1' });
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'MANUAL_PUSH_TO_TARGET_BRANCH' });
    expect(q.state(2)).toBe('PENDING'); // its branch was still being built: just rebuilt
    expect(q.effectsOf('cancelCi').map((c) => c.runId)).toEqual(['r1', 'r2']);
    expect(q.effectsOf('createTestBranch').map((c) => c.baseSha)).toEqual(['S1', 'S1']);
  });

  it('SKIP_THE_LINE_INTERRUPTED: an urgent PR pre-empts the lowest-priority running group', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1, { priority: 'high' });
    q.submit(2, { priority: 'low' });
    q.built('r1');
    q.built('r2');
    q.submit(3, { priority: 'urgent' });
    expect(q.entry(3).skipTheLine).toBe(true);
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'SKIP_THE_LINE_INTERRUPTED' });
    expect(q.state(1)).toBe('TESTING');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 3]);
    expect(q.effect('cancelCi').runId).toBe('r2');
  });

  it('a high (not urgent) PR never interrupts', () => {
    const q = new QueueDriver({ concurrency: 1 });
    q.startTesting(1);
    q.submit(2, { priority: 'high' });
    expect(q.effectsOf('cancelCi')).toEqual([]);
    expect(q.state(1)).toBe('TESTING');
  });
});

describe('PENDING_FAILURE → …', () => {
  it('→ PENDING (PREREQUISITE_MERGE_ITEM_FAILED) when the predecessor turns out to be the culprit', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.fail('r2');
    expect(q.state(2)).toBe('PENDING_FAILURE');
    q.fail('r1');
    expect(q.entry(2).timeline.at(-1)).toMatchObject({
      from: 'PENDING_FAILURE',
      to: 'PENDING',
      reason: 'PREREQUISITE_MERGE_ITEM_FAILED',
    });
    expect(q.effect('createTestBranch').prs).toEqual([{ number: 2, headSha: 'h2' }]);
  });

  it('→ PENDING on manual restart, without waiting for blame', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.fail('r2');
    q.send({ kind: 'restart', prNumber: 2, reason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
  });

  it('→ TESTS_PASSED when a successor that included it passes (anti-flake: optimistic + PFD)', () => {
    const q = new QueueDriver({ concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    q.submit(1);
    q.submit(2);
    q.submit(3);
    for (const r of ['r1', 'r2', 'r3']) q.built(r);
    q.fail('r2');
    q.pass('r1');
    expect(q.state(2)).toBe('PENDING_FAILURE');
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([1]);
    q.merged();
    q.pass('r3');
    expect(q.entry(2)).toMatchObject({
      state: 'TESTS_PASSED',
      lastReason: 'SUCCESSOR_TEST_RUN_PASSED',
      verifiedByTestRun: 'r3',
    });
    expect(q.effect('merge')).toMatchObject({
      runId: 'r3',
      expectedTargetSha: 'm-r1',
      prs: [
        { number: 2, headSha: 'h2' },
        { number: 3, headSha: 'h3' },
      ],
    });
    q.merged();
    expect([1, 2, 3].map((n) => q.state(n))).toEqual(['MERGED', 'MERGED', 'MERGED']);
  });

  it('anti-flake: a run started after a failure ahead still includes it, and its pass clears it', () => {
    const q = new QueueDriver({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    q.submit(1);
    q.submit(2);
    q.submit(3);
    q.built('r1');
    q.built('r2');
    q.fail('r2');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2, 3]);
    q.built('r3');
    q.pass('r3');
    expect([1, 2, 3].map((n) => q.entry(n).lastReason)).toEqual([
      'SUCCESSOR_TEST_RUN_PASSED',
      'SUCCESSOR_TEST_RUN_PASSED',
      'TEST_RUN_PASSED',
    ]);
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([1, 2, 3]);
  });

  it('without anti-flake a run started after a failure ahead leaves it out', () => {
    const q = new QueueDriver({ concurrency: 2, canOptimisticallyMerge: true });
    q.submit(1);
    q.submit(2);
    q.submit(3);
    q.built('r1');
    q.built('r2');
    q.fail('r2');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 3]);
  });

  it('→ FAILED only after the PFD successors finished', () => {
    const q = new QueueDriver({ concurrency: 2, pendingFailureDepth: 1 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.fail('r1');
    expect(q.state(1)).toBe('PENDING_FAILURE');
    q.fail('r2');
    expect(q.state(1)).toBe('FAILED');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_FAILED' });
  });
});

describe('TESTS_PASSED → …', () => {
  it('→ MERGED through one merge effect, then the test branch is deleted', () => {
    const q = new QueueDriver({ mergeMethod: 'rebase' });
    const run = q.startTesting(1);
    q.pass(run);
    expect(q.effect('merge')).toEqual({
      kind: 'merge',
      key: `${run}:merge:S0`,
      runId: run,
      expectedTargetSha: 'S0',
      testSha: `t-${run}`,
      prs: [{ number: 1, headSha: 'h1' }],
      method: 'rebase',
    });
    q.merged();
    expect(q.entry(1)).toMatchObject({ state: 'MERGED', lastReason: 'MERGE_GRAPH_MERGE', verifiedByTestRun: run });
    expect(q.snapshot.targetSha).toBe(`m-${run}`);
    expect(q.eventTypes()).toEqual(['pull_request.merged:1']);
    expect(q.effect('deleteTestBranch').runId).toBe(run);
  });

  it('waits for everything ahead to merge', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    expect(q.effectsOf('merge')).toEqual([]);
    q.pass('r1');
    expect(q.effect('merge').runId).toBe('r2');
  });

  it('one merge at a time: the next waits for the merged event, then merges onto the new sha', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r1');
    const first = q.effect('merge');
    expect(first.prs.map((p) => p.number)).toEqual([1]);
    q.pass('r2');
    expect(q.effectsOf('merge')).toEqual([]);
    q.merged(first);
    expect(q.effect('merge')).toMatchObject({
      runId: 'r2',
      expectedTargetSha: 'm-r1',
      prs: [{ number: 2, headSha: 'h2' }],
    });
  });

  it.each(['PR_UPDATED_AT_MERGE_TIME', 'MERGE_REFUSED'] as const)('→ FAILED on %s', (reason) => {
    const q = new QueueDriver();
    const run = q.startTesting(1);
    q.pass(run);
    q.send({ kind: 'mergeFailed', runId: run, prNumbers: [1], reason, detail: 'nope' });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: reason });
  });

  it('→ PENDING when an upstream group it was tested on is removed (optimistic off)', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
    expect(q.entry(2).timeline.at(-1)).toMatchObject({
      from: 'TESTS_PASSED',
      to: 'PENDING',
      reason: 'PREREQUISITE_MERGE_ITEM_CANCELLED',
    });
  });
});

describe('any non-terminal → CANCELLED / MERGED', () => {
  const observe = (q: QueueDriver, over: object) =>
    q.send({
      kind: 'prObserved',
      pr: {
        number: 1,
        headSha: 'h1',
        baseBranch: 'main',
        title: 'PR 1',
        author: 'dev',
        mergeability: 'mergeable',
        ...over,
      },
    });

  it.each([
    ['cancel', (q: QueueDriver) => q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' }), 'USER_REQUESTED'],
    ['closed', (q: QueueDriver) => q.send({ kind: 'prClosed', prNumber: 1 }), 'PR_CLOSED'],
    ['draft', (q: QueueDriver) => q.send({ kind: 'prConvertedToDraft', prNumber: 1 }), 'PR_CONVERTED_TO_DRAFT'],
    ['pushed to', (q: QueueDriver) => observe(q, { headSha: 'h1-new' }), 'PR_PUSHED_TO'],
    ['base changed', (q: QueueDriver) => observe(q, { baseBranch: 'release' }), 'PR_BASE_BRANCH_CHANGED'],
  ])('TESTING → CANCELLED when %s, and its CI is cancelled', (_n, act, reason) => {
    const q = new QueueDriver();
    q.startTesting(1);
    act(q);
    expect(q.entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: reason });
    expect(q.eventTypes()).toEqual(['pull_request.canceled:1']);
    expect(q.effect('cancelCi').runId).toBe('r1');
    expect(q.effect('deleteTestBranch').runId).toBe('r1');
  });

  it('NOT_READY → CANCELLED after the not-ready timeout (0 = never)', () => {
    const q = new QueueDriver({ notReadyTimeoutHours: 2 });
    q.submit(1, { pr: { mergeability: 'not_mergeable' } });
    const wake = q.effect('scheduleWakeup');
    expect(wake.at).toBe(q.now + 2 * 3_600_000);
    q.send({ kind: 'tick', at: wake.at });
    expect(q.entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'NOT_READY_TIMEOUT_EXPIRED' });
    const never = new QueueDriver();
    never.submit(1, { pr: { mergeability: 'not_mergeable' } });
    never.send({ kind: 'tick', at: never.now + 1_000 * 3_600_000 });
    expect(never.state(1)).toBe('NOT_READY');
  });

  it('PENDING → MERGED (MANUAL_MERGE) when merged outside the queue', () => {
    const q = new QueueDriver({ concurrency: 1 });
    q.startTesting(1);
    q.submit(2);
    q.send({ kind: 'prMergedOutside', prNumber: 2 });
    expect(q.entry(2)).toMatchObject({ state: 'MERGED', lastReason: 'MANUAL_MERGE' });
    expect(q.eventTypes()).toEqual(['pull_request.merged:2']);
  });
});

describe('a test slot freed by a PR leaving the queue is used in the same decision', () => {
  const observe = (q: QueueDriver, n: number, over: object) =>
    q.send({
      kind: 'prObserved',
      pr: {
        number: n,
        headSha: `h${n}`,
        baseBranch: 'main',
        title: `PR ${n}`,
        author: 'dev',
        mergeability: 'mergeable',
        ...over,
      },
    });
  const leaves: [string, (q: QueueDriver, n: number) => void][] = [
    ['cancelled', (q, n) => q.send({ kind: 'cancel', prNumber: n, reason: 'USER_REQUESTED' })],
    ['closed', (q, n) => q.send({ kind: 'prClosed', prNumber: n })],
    ['pushed to', (q, n) => observe(q, n, { headSha: `h${n}-new` })],
    ['converted to draft', (q, n) => q.send({ kind: 'prConvertedToDraft', prNumber: n })],
    ['failing', (q, n) => q.fail(q.entry(n).runId!)],
  ];

  it.each(leaves)('concurrency 1: the PR under test %s, the next PENDING PR starts', (_how, leave) => {
    const q = new QueueDriver({ concurrency: 1 });
    q.startTesting(1);
    q.submit(2);
    expect(q.state(2)).toBe('PENDING');
    leave(q, 1);
    expect(['CANCELLED', 'FAILED']).toContain(q.state(1));
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([2]);
    expect(q.runOf(2).status).toBe('creating');
    expect(
      q.snapshot.runs.filter((r) => r.status === 'creating' || r.status === 'in_progress').map((r) => r.id),
    ).toEqual([q.runOf(2).id]);
  });

  it.each(leaves)(
    'concurrency 2: the PR under test in the first slot %s, the next PENDING PR starts',
    (_how, leave) => {
      const q = new QueueDriver({ concurrency: 2 });
      q.submit(1);
      q.submit(2);
      q.built('r1');
      q.built('r2');
      q.submit(3);
      expect(q.state(3)).toBe('PENDING');
      leave(q, 2);
      // PR 2's run is stopped; PR 3 now tests on PR 1 in the freed slot.
      const create = q.effect('createTestBranch');
      expect(create.prs.map((p) => p.number)).toEqual([1, 3]);
      const inFlight = q.snapshot.runs.filter((r) => r.status === 'creating' || r.status === 'in_progress');
      expect(inFlight.map((r) => r.prNumbers)).toEqual([[1], [3]]);
    },
  );

  it('batches: a cancelled batch member frees its slot for the next batch in the same decision', () => {
    const q = new QueueDriver({ concurrency: 1, batch: true, batchingMinSize: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.submit(3);
    q.submit(4);
    expect(q.state(3)).toBe('PENDING');
    q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
    // PR 2 goes back to PENDING and forms the next batch with PR 3; PR 4 waits for a slot.
    expect(q.effect('cancelCi').runId).toBe('r1');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([2, 3]);
    expect(q.state(4)).toBe('PENDING');
  });
});
