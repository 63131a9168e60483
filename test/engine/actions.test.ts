/**
 * The actions-by-state table (contract §5.3) and the queue states (§5.4).
 */
import { describe, expect, it } from 'vitest';
import { queueOrder, readiness } from '../../src/engine/index.js';
import { QueueDriver, prInfo } from './queue-driver.js';

/** Brings PR 1 into the given state (PR 2 helps for PENDING_FAILURE). */
function inState(state: string): QueueDriver {
  const q = new QueueDriver({ concurrency: 2 });
  switch (state) {
    case 'NOT_READY':
      q.submit(1, { pr: { mergeability: 'in_progress' } });
      break;
    case 'PENDING':
      q.send({ kind: 'setState', state: 'PAUSED' });
      q.submit(1, { forceEnqueued: true });
      q.send({ kind: 'setState', state: 'RUNNING' });
      q.send({ kind: 'setState', state: 'PAUSED' });
      break;
    case 'TESTING':
      q.startTesting(1);
      break;
    case 'TESTS_PASSED':
      q.startTesting(1);
      q.send({ kind: 'setState', state: 'PAUSED' });
      q.pass('r1');
      break;
    case 'PENDING_FAILURE':
      q.submit(2);
      q.submit(1);
      q.built('r1');
      q.built('r2');
      q.fail('r2');
      break;
    case 'MERGED':
      q.startTesting(1);
      q.pass('r1');
      q.merged();
      break;
    case 'FAILED':
      q.startTesting(1);
      q.fail('r1');
      break;
    case 'CANCELLED':
      q.submit(1);
      q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
      break;
  }
  expect(q.state(1)).toBe(state);
  return q;
}

const LIVE = ['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'];
const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];

describe('submit again', () => {
  it.each(LIVE)('in %s updates priority and noBatch in place, without a transition', (state) => {
    const q = inState(state);
    const before = q.entry(1);
    q.submit(1, { priority: 'low', noBatch: true, pr: { mergeability: 'in_progress' } });
    expect(q.entry(1)).toMatchObject({
      state,
      trip: 1,
      priorityValue: 200,
      priorityName: 'low',
      noBatch: true,
      timeline: before.timeline,
    });
  });

  it.each(TERMINAL)('in %s starts a new trip in NOT_READY (or admitted at once)', (state) => {
    const q = inState(state);
    q.submit(1, { pr: { headSha: 'h1-2', mergeability: 'unspecified' } });
    expect(q.entry(1)).toMatchObject({
      state: 'NOT_READY',
      trip: 2,
      id: 'entry-1',
      runId: null,
      verifiedByTestRun: null,
    });
  });

  it.each(TERMINAL)(
    'in %s is refused when the forge reports the PR already in its base: PR_ALREADY_MERGED',
    (state) => {
      const q = inState(state);
      const r = q.reject({
        kind: 'submit',
        entryId: 'entry-x',
        pr: prInfo(1, { alreadyInBase: true }),
        reason: 'API_REQUESTED',
      });
      expect(r.code).toBe('PR_ALREADY_MERGED');
      expect(r.message).toMatch(/PR #1 is already merged: merging its head h1 into main changes nothing/);
    },
  );
});

describe('first submission of a PR already in its base', () => {
  it('is refused (PR_ALREADY_MERGED) and leaves no entry', () => {
    const q = new QueueDriver();
    expect(
      q.reject({ kind: 'submit', entryId: 'entry-1', pr: prInfo(1, { alreadyInBase: true }), reason: 'API_REQUESTED' })
        .code,
    ).toBe('PR_ALREADY_MERGED');
    expect(() => q.entry(1)).toThrow();
    q.submit(2, { pr: { alreadyInBase: false } });
    expect(q.state(2)).toBe('PENDING');
  });
});

describe('cancel', () => {
  it.each(LIVE)('in %s → CANCELLED', (state) => {
    const q = inState(state);
    q.send({ kind: 'cancel', prNumber: 1, reason: 'API_REQUESTED' });
    expect(q.entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'API_REQUESTED' });
  });

  it.each(TERMINAL)('in %s is refused: PR_NOT_IN_QUEUE', (state) => {
    const q = inState(state);
    expect(q.reject({ kind: 'cancel', prNumber: 1, reason: 'API_REQUESTED' })).toMatchObject({
      code: 'PR_NOT_IN_QUEUE',
    });
  });

  it('of an unknown PR is refused', () => {
    expect(new QueueDriver().reject({ kind: 'cancel', prNumber: 9, reason: 'API_REQUESTED' }).message).toContain('#9');
  });

  it('while its merge is in flight is refused', () => {
    const q = inState('TESTING');
    q.pass('r1');
    expect(q.reject({ kind: 'cancel', prNumber: 1, reason: 'API_REQUESTED' })).toMatchObject({
      code: 'PR_BEING_MERGED',
    });
  });
});

describe('restart', () => {
  it.each(['TESTING', 'PENDING_FAILURE'])('in %s → PENDING with a new run', (state) => {
    const q = inState(state);
    q.send({ kind: 'restart', prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(q.effect('createTestBranch').prs.at(-1)).toEqual({ number: 1, headSha: 'h1' });
  });

  it.each(['NOT_READY', 'PENDING', 'TESTS_PASSED'])('in %s is refused naming the state', (state) => {
    const q = inState(state);
    const r = q.reject({ kind: 'restart', prNumber: 1, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
    expect(r.code).toBe('RESTART_NOT_ALLOWED');
    expect(r.message).toContain(state);
  });

  it.each(TERMINAL)('in %s is refused: PR_NOT_IN_QUEUE', (state) => {
    expect(inState(state).reject({ kind: 'restart', prNumber: 1, reason: 'TESTS_RESTARTED_BY_USER' }).code).toBe(
      'PR_NOT_IN_QUEUE',
    );
  });
});

describe('queue states (§5.4)', () => {
  it('PAUSED starts nothing and merges nothing, but records results; RUNNING resumes both', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.built('r1');
    q.send({ kind: 'setState', state: 'PAUSED' });
    q.submit(2, { forceEnqueued: true });
    expect(q.state(2)).toBe('NOT_READY');
    q.pass('r1');
    expect(q.state(1)).toBe('TESTS_PASSED');
    expect(q.effectsOf('merge')).toEqual([]);
    q.send({ kind: 'setState', state: 'RUNNING' });
    expect(q.effect('merge').runId).toBe('r1');
    expect(q.state(2)).toBe('PENDING');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
  });

  it('DRAINING tests and merges what was admitted, admits nothing new', () => {
    const q = new QueueDriver({ concurrency: 1 });
    q.startTesting(1);
    q.submit(2);
    q.send({ kind: 'setState', state: 'DRAINING' });
    q.submit(3);
    q.pass('r1');
    expect(q.effect('merge').runId).toBe('r1');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
    q.merged();
    expect(q.state(3)).toBe('NOT_READY');
  });

  it('a mode change with PRs present switches after they drained, then runs again', () => {
    const q = new QueueDriver();
    q.startTesting(1);
    q.send({ kind: 'updateConfig', patch: { mode: 'parallel', concurrency: 3 } });
    expect(q.snapshot).toMatchObject({ state: 'SWITCHING_MODES', config: { mode: 'single', concurrency: 3 } });
    q.submit(2);
    expect(q.state(2)).toBe('NOT_READY');
    expect(q.reject({ kind: 'setState', state: 'RUNNING' })).toMatchObject({
      code: 'SWITCHING_MODES',
      message: expect.stringContaining('switching'),
    });
    q.send({ kind: 'impactedTargets', prNumber: 2, headSha: 'h2', targets: ['x'] });
    q.pass('r1');
    q.merged();
    expect(q.snapshot).toMatchObject({ state: 'RUNNING', config: { mode: 'parallel' } });
    expect(q.state(2)).toBe('PENDING');
  });

  it('while switching, applies settings and retargets the mode, unless the write asks to be refused', () => {
    const q = new QueueDriver();
    q.startTesting(1);
    q.send({ kind: 'updateConfig', patch: { mode: 'parallel' } });
    const refused = { kind: 'updateConfig', patch: { concurrency: 4 }, refuseWhileSwitching: true } as const;
    expect(q.reject(refused)).toMatchObject({ code: 'SWITCHING_MODES', message: expect.stringContaining('parallel') });
    expect(q.reject({ ...refused, patch: { mode: 'single' } }).code).toBe('SWITCHING_MODES');
    expect(q.snapshot).toMatchObject({ state: 'SWITCHING_MODES', config: { mode: 'single', concurrency: 1 } });
    q.send({ kind: 'updateConfig', patch: { concurrency: 4 } });
    expect(q.snapshot.config.concurrency).toBe(4);
    q.send({ kind: 'updateConfig', patch: { mode: 'single' } });
    expect(q.snapshot.state).toBe('RUNNING');
    // Nothing to refuse on a queue that is not switching.
    q.send({ ...refused, patch: { concurrency: 2 } });
    expect(q.snapshot.config.concurrency).toBe(2);
  });

  it('a mode change on an empty queue is immediate', () => {
    const q = new QueueDriver();
    q.send({ kind: 'updateConfig', patch: { mode: 'parallel' } });
    expect(q.snapshot).toMatchObject({ state: 'RUNNING', config: { mode: 'parallel' } });
  });

  it('refuses bad settings naming the field, and unknown states', () => {
    const q = new QueueDriver();
    expect(q.reject({ kind: 'updateConfig', patch: { concurrency: 0 } })).toMatchObject({
      code: 'INVALID_CONFIG',
      message: expect.stringContaining('concurrency'),
    });
    expect(q.reject({ kind: 'updateConfig', patch: { concurrency: 1001 } }).message).toBe(
      'concurrency must be an integer from 1 to 1000, got 1001',
    );
    expect(q.reject({ kind: 'updateConfig', patch: { bogus: 1 } as never }).message).toContain('bogus');
    expect(q.reject({ kind: 'setState', state: 'SWITCHING_MODES' as never }).code).toBe('INVALID_EVENT');
  });
});

describe('bad events', () => {
  it('refuses events for unknown or finished runs without touching the snapshot', () => {
    const q = new QueueDriver();
    q.startTesting(1);
    expect(q.reject({ kind: 'ciResult', runId: 'nope', outcome: 'success' }).code).toBe('RUN_NOT_FOUND');
    expect(q.reject({ kind: 'testBranchCreated', runId: 'r1', sha: 'x' }).code).toBe('STALE_RUN_EVENT');
    q.pass('r1');
    expect(q.reject({ kind: 'ciResult', runId: 'r1', outcome: 'failure' }).code).toBe('STALE_RUN_EVENT');
    expect(q.reject({ kind: 'merged', runId: 'r1', prNumbers: [2], newTargetSha: 'x' }).code).toBe('INVALID_EVENT');
    expect(q.reject({ kind: 'merged', runId: 'zzz', prNumbers: [1], newTargetSha: 'x' }).code).toBe('RUN_NOT_FOUND');
  });

  it('refuses a bad priority and a non-finite time', () => {
    const q = new QueueDriver();
    expect(
      q.reject({
        kind: 'submit',
        entryId: 'e',
        pr: { number: 1, headSha: 'h', baseBranch: 'main', title: '', author: '', mergeability: 'mergeable' },
        priority: 'hot' as never,
        reason: 'API_REQUESTED',
      }).message,
    ).toContain('hot');
    expect(q.reject({ kind: 'tick', at: Number.NaN }).code).toBe('INVALID_EVENT');
  });
});

describe('ordering and readiness', () => {
  it('orders by priority then admission; started entries keep their position', () => {
    const q = new QueueDriver({ concurrency: 1 });
    q.startTesting(1);
    q.submit(2, { priority: 'low' });
    q.submit(3);
    q.submit(4, { priority: 'high' });
    q.submit(5, { pr: { mergeability: 'unspecified' } });
    expect(queueOrder(q.snapshot).map((e) => e.prNumber)).toEqual([1, 4, 3, 2, 5]);
    expect(queueOrder(q.snapshot, { includeNotReady: false }).map((e) => e.prNumber)).toEqual([1, 4, 3, 2]);
  });

  it('reports readiness (contract §2.4)', () => {
    const q = new QueueDriver({ mode: 'parallel' });
    q.submit(1, { pr: { baseBranch: 'dev', mergeability: 'not_mergeable' } });
    expect(readiness(q.snapshot, q.entry(1))).toEqual({
      hasImpactedTargets: false,
      requiresImpactedTargets: true,
      doesBaseBranchMatch: false,
      mergeability: 'not_mergeable',
    });
  });
});
