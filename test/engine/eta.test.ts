/**
 * queueOutlook and queueStatistics: position, what each PR waits on and its estimated merge time,
 * as tables over hand-built queue snapshots.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queueOutlook } from '../../src/engine/eta.js';
import {
  type FinishedRun,
  prFailures,
  queueStatistics,
  type QueueStatistics,
} from '../../src/engine/eta-statistics.js';
import {
  newQueueSnapshot,
  type Entry,
  type PrState,
  type QueueConfig,
  type QueueSnapshot,
  type TestRun,
} from '../../src/engine/index.js';

const MIN = 60_000;
const NOW = 1_000 * MIN;

function entry(n: number, state: PrState, extra: Partial<Entry> = {}): Entry {
  return {
    id: `e${n}`,
    prNumber: n,
    trip: 1,
    state,
    stateChangedAt: NOW - 60 * MIN,
    submittedAt: NOW - 60 * MIN + n,
    admittedAt: state === 'NOT_READY' ? null : NOW - 60 * MIN + n,
    headSha: `h${n}`,
    baseBranch: 'main',
    title: `PR ${n}`,
    author: 'dev',
    mergeability: 'mergeable',
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    skipTheLine: false,
    noBatch: false,
    forceEnqueued: false,
    impactedTargets: null,
    runId: null,
    verifiedByTestRun: null,
    lastReason: 'API_REQUESTED',
    timeline: [],
    ...extra,
  };
}

function run(
  id: string,
  prNumbers: number[],
  startedMinutesAgo: number,
  status: TestRun['status'] = 'in_progress',
): TestRun {
  return {
    id,
    queueType: 'main',
    prNumbers,
    dependentPrs: [],
    baseSha: 'base',
    prs: prNumbers.map((number) => ({ number, headSha: `h${number}` })),
    testBranch: `gl/${id}`,
    testSha: 'test',
    status,
    createdAt: NOW - startedMinutesAgo * MIN,
    finishedAt: status === 'in_progress' || status === 'creating' ? null : NOW,
    failureReason: null,
    failureDetail: null,
  };
}

/** A queue whose started entries keep their order (internal.order), as the engine pins them. */
function queue(config: Partial<QueueConfig>, entries: Entry[], runs: TestRun[] = []): QueueSnapshot {
  const s = newQueueSnapshot({ host: 'github.com', owner: 'acme', name: 'app' }, 'main', config);
  const pinned = entries.filter((e) => e.runId !== null).map((e) => e.prNumber);
  return { ...s, targetSha: 'base', entries, runs, internal: { order: pinned } };
}

const STATS: QueueStatistics = { ciMs: 30 * MIN, failureRate: 0, samples: 20 };

/** [position, waitingOn code, minutes from now to the estimated merge (null: none)] by PR number. */
function table(s: QueueSnapshot, stats = STATS): Record<number, [number | null, string, number | null]> {
  const out: Record<number, [number | null, string, number | null]> = {};
  for (const [n, o] of queueOutlook(s, stats, NOW)) {
    out[n] = [o.position, o.waitingOn.code, o.estimatedMergeAt === null ? null : (o.estimatedMergeAt - NOW) / MIN];
  }
  return out;
}

describe('queueStatistics', () => {
  const finished = (
    minutes: number,
    status: FinishedRun['status'],
    at = NOW,
    queueType: FinishedRun['queueType'] = 'main',
  ): FinishedRun => ({
    queueType,
    status,
    createdAt: at - minutes * MIN,
    finishedAt: at,
  });
  it.each<[string, FinishedRun[], QueueStatistics]>([
    ['no history', [], { ciMs: null, failureRate: 0, samples: 0 }],
    [
      'median duration, failure share',
      [finished(10, 'succeeded'), finished(20, 'failed'), finished(40, 'succeeded')],
      {
        ciMs: 20 * MIN,
        failureRate: 1 / 3,
        samples: 3,
        durations: [10 * MIN, 20 * MIN, 40 * MIN],
        prFailureRate: 1 / 3,
        prOutcomes: 3,
      },
    ],
    [
      'cancelled and bisection runs are left out',
      [finished(10, 'succeeded'), finished(5, 'cancelled'), finished(50, 'failed', NOW, 'bisection')],
      { ciMs: 10 * MIN, failureRate: 0, samples: 1, durations: [10 * MIN], prFailureRate: 0, prOutcomes: 1 },
    ],
    [
      'only the latest 50 count',
      [
        ...Array.from({ length: 50 }, (_, i) => finished(10, 'succeeded', NOW - i * MIN)),
        ...Array.from({ length: 30 }, (_, i) => finished(90, 'failed', NOW - (100 + i) * MIN)),
      ],
      {
        ciMs: 10 * MIN,
        failureRate: 0,
        samples: 50,
        durations: Array(50).fill(10 * MIN),
        prFailureRate: 0,
        prOutcomes: 50,
      },
    ],
  ])('%s', (_name, runs, expected) => {
    expect(queueStatistics(runs)).toEqual(expected);
  });
});

describe('prFailures', () => {
  it.each<[string, [number, boolean][], number]>([
    ['no runs', [], 0],
    [
      'single PRs: the share of failed runs',
      [
        [1, true],
        [1, false],
        [1, false],
        [1, false],
      ],
      0.25,
    ],
    // One bad PR per failed run; the good PRs count once, in the run they passed.
    [
      'batches: per PR',
      [
        [4, true],
        [4, false],
        [3, false],
        [2, false],
      ],
      1 / 10,
    ],
  ])('%s', (_name, runs, expected) => {
    expect(prFailures(runs).rate).toBeCloseTo(expected);
  });
});

describe('queueOutlook', () => {
  it.each<[string, QueueSnapshot, QueueStatistics, ReturnType<typeof table>]>([
    [
      'single mode, one slot: a run in flight, then one PR at a time',
      queue(
        { concurrency: 1 },
        [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'PENDING'), entry(3, 'PENDING')],
        [run('r1', [1], 10)],
      ),
      STATS,
      { 1: [1, 'RUN_IN_FLIGHT', 20], 2: [2, 'PRS_AHEAD', 50], 3: [3, 'PRS_AHEAD', 80] },
    ],
    [
      'two slots: the next PR starts now, the third waits for a slot',
      queue(
        { concurrency: 2 },
        [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'PENDING'), entry(3, 'PENDING')],
        [run('r1', [1], 10)],
      ),
      STATS,
      { 1: [1, 'RUN_IN_FLIGHT', 20], 2: [2, 'TEST_SLOT', 30], 3: [3, 'PRS_AHEAD', 50] },
    ],
    [
      'merges in order: a PR that passed waits for the one ahead',
      queue(
        { concurrency: 2 },
        [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'TESTS_PASSED', { runId: 'r2' })],
        [run('r1', [1], 10), run('r2', [2], 35, 'succeeded')],
      ),
      STATS,
      { 1: [1, 'RUN_IN_FLIGHT', 20], 2: [2, 'MERGE_ORDER', 20] },
    ],
    [
      'the head passed: being merged',
      queue({}, [entry(1, 'TESTS_PASSED', { runId: 'r1' })], [run('r1', [1], 35, 'succeeded')]),
      STATS,
      { 1: [1, 'MERGING', 0] },
    ],
    [
      'no finished run yet: positions and reasons, no estimate',
      queue({ concurrency: 1 }, [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'PENDING')], [run('r1', [1], 10)]),
      { ciMs: null, failureRate: 0, samples: 0 },
      { 1: [1, 'RUN_IN_FLIGHT', null], 2: [2, 'PRS_AHEAD', null] },
    ],
    [
      'a run past its usual time ends now at the earliest',
      queue({ concurrency: 1 }, [entry(1, 'TESTING', { runId: 'r1' })], [run('r1', [1], 45)]),
      STATS,
      { 1: [1, 'RUN_IN_FLIGHT', 0] },
    ],
    [
      'paused: nothing merges, no estimate',
      {
        ...queue({}, [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'PENDING')], [run('r1', [1], 10)]),
        state: 'PAUSED',
      },
      STATS,
      { 1: [1, 'QUEUE_PAUSED', null], 2: [2, 'QUEUE_PAUSED', null] },
    ],
    [
      'paused: a PR not admitted yet waits for the queue before anything of its own',
      {
        ...queue({}, [entry(1, 'NOT_READY'), entry(2, 'NOT_READY', { mergeability: 'in_progress' })]),
        state: 'PAUSED',
      },
      STATS,
      { 1: [null, 'QUEUE_PAUSED', null], 2: [null, 'QUEUE_PAUSED', null] },
    ],
    [
      'draining: admitted PRs go on, the others wait for the queue',
      { ...queue({}, [entry(1, 'PENDING'), entry(2, 'NOT_READY')]), state: 'DRAINING' },
      STATS,
      { 1: [1, 'TEST_SLOT', 30], 2: [null, 'QUEUE_DRAINING', null] },
    ],
    [
      'switching modes: the PRs not admitted wait for the switch',
      { ...queue({}, [entry(2, 'NOT_READY')]), state: 'SWITCHING_MODES' },
      STATS,
      { 2: [null, 'SWITCHING_MODES', null] },
    ],
    [
      'frozen: nothing merges, no estimate',
      queue(
        {
          freezes: {
            windows: [],
            oneOff: [
              {
                from: new Date(NOW - MIN).toISOString(),
                until: new Date(NOW + 60 * MIN).toISOString(),
                reason: 'release',
              },
            ],
            exemptLabels: [],
            stopTesting: false,
          },
        },
        [entry(1, 'PENDING')],
      ),
      STATS,
      { 1: [1, 'FROZEN', null] },
    ],
    [
      'not ready: no position; a failing PR: no estimate',
      queue(
        { concurrency: 2 },
        [entry(1, 'PENDING_FAILURE', { runId: 'r1' }), entry(2, 'NOT_READY', { mergeability: 'in_progress' })],
        [run('r1', [1], 30, 'failed')],
      ),
      STATS,
      { 1: [1, 'FAILING', null], 2: [null, 'NOT_READY', null] },
    ],
    [
      'parallel mode: positions and merges per lane, slots shared',
      queue(
        { mode: 'parallel', concurrency: 2 },
        [
          entry(1, 'TESTING', { runId: 'r1', impactedTargets: ['a'] }),
          entry(2, 'PENDING', { impactedTargets: ['b'] }),
          entry(3, 'PENDING', { impactedTargets: ['a'] }),
          entry(4, 'NOT_READY', { impactedTargets: null }),
        ],
        [run('r1', [1], 10)],
      ),
      STATS,
      {
        1: [1, 'RUN_IN_FLIGHT', 20],
        2: [1, 'TEST_SLOT', 30],
        3: [2, 'PRS_AHEAD', 50],
        4: [null, 'IMPACTED_TARGETS', null],
      },
    ],
    [
      'batching: a batch short of its size waits for its deadline',
      queue({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5, concurrency: 2 }, [
        entry(1, 'PENDING', { admittedAt: NOW - 2 * MIN }),
        entry(2, 'PENDING', { admittedAt: NOW - MIN }),
      ]),
      STATS,
      { 1: [1, 'BATCH_WAIT', 33], 2: [2, 'BATCH_WAIT', 33] },
    ],
    [
      'batching: a full batch starts now; the next one is a batch of its own',
      queue({ batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 5, concurrency: 1 }, [
        entry(1, 'PENDING'),
        entry(2, 'PENDING'),
        entry(3, 'PENDING'),
        entry(4, 'PENDING'),
      ]),
      STATS,
      { 1: [1, 'TEST_SLOT', 30], 2: [2, 'TEST_SLOT', 30], 3: [3, 'PRS_AHEAD', 60], 4: [4, 'TEST_SLOT', 60] },
    ],
    [
      'a likely failure ahead delays the PRs behind it by the overlap',
      queue(
        { concurrency: 3 },
        [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'TESTING', { runId: 'r2' }), entry(3, 'PENDING')],
        [run('r1', [1], 20), run('r2', [2], 10)],
      ),
      { ciMs: 30 * MIN, failureRate: 0.2, samples: 20 },
      // Each PR fails with probability 0.2, which restarts the runs behind it when it ends. #2 and #3
      // most likely see no failure ahead (0.8 and 0.64): the median is no delay (the range below).
      { 1: [1, 'RUN_IN_FLIGHT', 10], 2: [2, 'RUN_IN_FLIGHT', 20], 3: [3, 'TEST_SLOT', 30] },
    ],
  ])('%s', (_name, snapshot, stats, expected) => {
    expect(table(snapshot, stats)).toEqual(expected);
  });

  it('leaves terminal entries out, and says in words what a PR waits on', () => {
    const s = queue(
      { concurrency: 1 },
      [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'PENDING'), entry(3, 'MERGED')],
      [run('r1', [1], 10)],
    );
    const outlook = queueOutlook(s, STATS, NOW);
    expect([...outlook.keys()].sort()).toEqual([1, 2]);
    expect(outlook.get(1)!.waitingOn.message).toBe(
      'Its test run is in flight (started 10 minutes ago; runs take about 30 minutes).',
    );
    expect(outlook.get(2)!.waitingOn.message).toBe('1 PR is ahead of it in the queue.');
  });
});

/** [median, p10, p90] in minutes from now, by PR number. */
function ranges(s: QueueSnapshot, stats: QueueStatistics, now = NOW): Record<number, [number, number, number] | null> {
  const out: Record<number, [number, number, number] | null> = {};
  for (const [n, o] of queueOutlook(s, stats, now)) {
    out[n] =
      o.estimatedMergeAt === null || o.estimatedMergeRange === null
        ? null
        : [
            (o.estimatedMergeAt - now) / MIN,
            (o.estimatedMergeRange.p10 - now) / MIN,
            (o.estimatedMergeRange.p90 - now) / MIN,
          ];
  }
  return out;
}

describe('estimatedMergeRange: the model sampled', () => {
  const ahead = () =>
    queue(
      { concurrency: 3 },
      [entry(1, 'TESTING', { runId: 'r1' }), entry(2, 'TESTING', { runId: 'r2' }), entry(3, 'PENDING')],
      [run('r1', [1], 20), run('r2', [2], 10)],
    );

  it('a failure ahead restarts the runs behind it when it ends: the range reaches the restart', () => {
    // #2 is restarted at +10 when #1 fails (0.2); #3 at +20 when #2 fails (0.2), else at +10 (0.16).
    expect(ranges(ahead(), { ciMs: 30 * MIN, failureRate: 0.2, samples: 20 })).toEqual({
      1: [10, 10, 10],
      2: [20, 20, 40],
      3: [30, 30, 50],
    });
  });

  it('no failure and one CI time: the range is the estimate', () => {
    expect(ranges(ahead(), STATS)).toEqual({ 1: [10, 10, 10], 2: [20, 20, 20], 3: [30, 30, 30] });
  });

  it('CI durations are drawn from the recent ones; the range contains the estimate', () => {
    const stats: QueueStatistics = {
      ...STATS,
      durations: [20, 25, 30, 35, 40, 60].map((m) => m * MIN),
      prFailureRate: 0.05,
    };
    const s = queue(
      { concurrency: 2 },
      [entry(1, 'TESTING', { runId: 'r1' }), ...[2, 3, 4, 5, 6].map((n) => entry(n, 'PENDING'))],
      [run('r1', [1], 10)],
    );
    const r = ranges(s, stats);
    for (const n of [1, 2, 3, 4, 5, 6]) {
      const [median, p10, p90] = r[n]!;
      expect(p10).toBeLessThanOrEqual(median);
      expect(median).toBeLessThanOrEqual(p90);
      expect(p10).toBeGreaterThanOrEqual(0);
    }
    // The run in flight has run 10 minutes: it ends 10 to 50 minutes from now.
    expect(r[1]![1]).toBeGreaterThanOrEqual(10);
    expect(r[1]![2]).toBeLessThanOrEqual(50);
    // Merges keep queue order, so do the estimates; the slowest run ahead widens the range.
    for (const n of [2, 3, 4, 5, 6]) expect(r[n]![0]).toBeGreaterThanOrEqual(r[n - 1]![0]);
    expect(r[6]![2] - r[6]![1]).toBeGreaterThan(0);
  });

  it('is deterministic: the same snapshot, statistics and time give the same estimates', () => {
    const stats: QueueStatistics = { ...STATS, failureRate: 0.3, durations: [20, 30, 45].map((m) => m * MIN) };
    expect(JSON.stringify([...queueOutlook(ahead(), stats, NOW)])).toBe(
      JSON.stringify([...queueOutlook(structuredClone(ahead()), { ...stats }, NOW)]),
    );
  });

  /** A batch of four testing for 0 minutes, one PR in three bad; PRs submitted `gapMinutes` apart. */
  const failingBatch = (gapMinutes: number) =>
    ranges(
      queue(
        { concurrency: 2, batch: true, batchingMinSize: 4 },
        [1, 2, 3, 4].map((n) =>
          entry(n, 'TESTING', { runId: 'r1', submittedAt: NOW - (5 - n) * gapMinutes * MIN, admittedAt: NOW }),
        ),
        [run('r1', [1, 2, 3, 4], 0)],
      ),
      { ciMs: 30 * MIN, failureRate: 0.3, samples: 20, prFailureRate: 0.3 },
    )[1];

  it('bisection: a PR whose batch fails on another PR is merged after its half clears', () => {
    // PR 1's batch passes at +30 (0.7³ = 34%), or fails and its half clears at +60 (nothing behind
    // started without it, so that run counts), or when its half fails too, its quarter at +90. The
    // estimate is +30: the least error as a share of the wait (34%/30 outweighs 36%/60 + 30%/90).
    expect(failingBatch(1000)).toEqual([30, 30, 90]);
  });

  it('bisection: PRs arriving behind a failed batch before its half clears: the half is tested again', () => {
    // A PR every minute starts a group behind the batch long before +60: PR 1's cleared half
    // re-enters behind them and is tested again (+90), its cleared quarter too (+120).
    expect(failingBatch(1)).toEqual([30, 30, 120]);
  });

  it('an open batch may fill before its deadline: PRs arriving fast start it earlier', () => {
    // PR 1 waits for its batch (deadline in 5 minutes); PRs arrived every 30 s before it.
    const s = queue({ concurrency: 2, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 60 }, [
      ...[1].map((n) => entry(n, 'PENDING', { admittedAt: NOW - MIN, submittedAt: NOW - MIN })),
    ]);
    s.entries.push(
      ...[2, 3, 4, 5, 6].map((n) => entry(n, 'NOT_READY', { submittedAt: NOW - (n - 1) * 30_000, admittedAt: null })),
    );
    const [median, p10] = ranges(s, STATS)[1]!;
    // Without arrivals it would start at its deadline, 59 minutes from now.
    expect(median).toBeLessThan(59 + 30);
    expect(p10).toBeGreaterThanOrEqual(30);
  });
});

describe('estimatedMergeRange: properties', () => {
  it('for any queue: p10 ≤ estimate ≤ p90, none before now, merges in queue order, and the same answer twice', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<PrState>('PENDING', 'TESTING', 'TESTS_PASSED'), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.double({ min: 0, max: 0.6, noNaN: true }),
        fc.array(fc.integer({ min: 1, max: 90 }), { minLength: 1, maxLength: 10 }),
        (states, concurrency, batch, rate, minutes) => {
          // Entries that passed or test come first, as the engine keeps started groups ahead.
          const order = { TESTS_PASSED: 0, TESTING: 1, PENDING: 2 } as Record<string, number>;
          const sorted = [...states].sort((a, b) => order[a] - order[b]);
          const entries = sorted.map((st, i) => entry(i + 1, st, st === 'TESTING' ? { runId: `r${i + 1}` } : {}));
          const runs = entries.filter((e) => e.runId !== null).map((e) => run(e.runId!, [e.prNumber], 5));
          const s = queue({ concurrency, batch, batchingMinSize: 2 }, entries, runs);
          const durations = minutes.map((m) => m * MIN).sort((a, b) => a - b);
          const stats: QueueStatistics = { ciMs: durations[0], failureRate: rate, samples: 10, durations };
          const first = queueOutlook(s, stats, NOW);
          expect(JSON.stringify([...queueOutlook(s, stats, NOW)])).toBe(JSON.stringify([...first]));
          let previous = NOW;
          for (const o of [...first.values()].sort((a, b) => a.position! - b.position!)) {
            expect(o.estimatedMergeAt).not.toBeNull();
            const r = o.estimatedMergeRange!;
            expect(r.p10).toBeLessThanOrEqual(o.estimatedMergeAt!);
            expect(o.estimatedMergeAt!).toBeLessThanOrEqual(r.p90);
            expect(r.p10).toBeGreaterThanOrEqual(NOW);
            // Without failures the model merges in order; with them, merged PRs only go earlier.
            if (rate === 0) expect(o.estimatedMergeAt!).toBeGreaterThanOrEqual(previous);
            previous = o.estimatedMergeAt!;
          }
        },
      ),
      { numRuns: 150, seed: 7 },
    );
  });
});
