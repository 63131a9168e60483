/**
 * Adaptive mode (adaptive.ts): the window grows by one per merged PR and shrinks to ⌊w · (1 − q̂/2)⌋
 * per group that failed on its own, q̂ = 1 − (1 − p̂)^B the share of groups of B that fail, within [floor, ceiling]; batches are sized from the measured failure rate p̂ and how
 * many PRs wait; with the mode off every decision is what it was without the setting.
 */
import { describe, expect, it } from 'vitest';
import { adaptiveStatus, type QueueConfig } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const adaptive = (config: Partial<QueueConfig> = {}, targetSha: string | null = 'S0') =>
  new QueueDriver({ adaptiveMode: 'on', ...config }, targetSha);

const inFlight = (q: QueueDriver): number =>
  q.snapshot.runs.filter((r) => r.queueType === 'main' && (r.status === 'creating' || r.status === 'in_progress'))
    .length;

const windowOf = (q: QueueDriver): number => adaptiveStatus(q.snapshot)!.concurrency;

const creates = (q: QueueDriver): number[][] => q.effectsOf('createTestBranch').map((c) => c.prs.map((p) => p.number));

/** The main run PR `n` is in now, built and failed: PR n ends FAILED (pendingFailureDepth 0). */
function failHead(q: QueueDriver, n: number): void {
  const run = q.runOf(n).id;
  if (q.run(run).status === 'creating') q.built(run);
  q.fail(run);
  expect(q.state(n)).toBe('FAILED');
}

/** The main run PR `n` is in now, built, passed and merged. */
function mergeHead(q: QueueDriver, n: number): void {
  const run = q.runOf(n).id;
  if (q.run(run).status === 'creating') q.built(run);
  q.pass(run);
  q.merged();
  expect(q.state(n)).toBe('MERGED');
}

/** Sizes of the groups started by the last decision, in order. */
const startedGroups = (q: QueueDriver): number[] =>
  q.effectsOf('createTestBranch').map((c) => q.run(c.runId).prNumbers.length);

/** The queue as if it had measured: its window and p̂ set. */
function measured(q: QueueDriver, window: number, failureRate: number): void {
  q.snapshot = { ...q.snapshot, internal: { ...q.snapshot.internal, adaptive: { window, failureRate } } };
}

/** `count` PRs admitted while the target is unknown, then the target appears: they all wait at once. */
function backlog(q: QueueDriver, count: number): void {
  for (let n = 1; n <= count; n++) q.submit(n);
  q.send({ kind: 'targetMoved', sha: 'S0' });
}

describe('adaptive window', () => {
  it('starts at the ceiling: turning the mode on does not slow a healthy queue', () => {
    const q = adaptive({ concurrency: 4 });
    for (const n of [1, 2, 3, 4, 5, 6]) q.submit(n);
    expect(inFlight(q)).toBe(4);
    expect(adaptiveStatus(q.snapshot)).toEqual({ concurrency: 4, batchSize: 1, failureRate: 0 });
  });

  it('shrinks by half the measured failure rate per failed PR down to the floor, and the runs in flight follow it', () => {
    const q = adaptive({ concurrency: 8, adaptiveMinConcurrency: 2 });
    for (let n = 1; n <= 14; n++) q.submit(n);
    expect(inFlight(q)).toBe(8);
    measured(q, 8, 0.5);
    failHead(q, 1);
    expect(windowOf(q)).toBe(6); // ⌊8 · (1 − 0.5/2)⌋
    expect(inFlight(q)).toBe(6); // the runs behind PR 1 restarted without it, six at a time
    const windows: number[] = [];
    for (let n = 2; n <= 5; n++) {
      failHead(q, n);
      windows.push(windowOf(q));
    }
    expect(windows).toEqual([4, 2, 2, 2]); // p̂ 51%, 52%, …: ⌊6 · 0.745⌋, ⌊4 · 0.74⌋, then the floor
    expect(inFlight(q)).toBe(2);
  });

  it('shrinks by as much as groups of the size being formed fail: more for batches than for single PRs', () => {
    // p̂ = 5%: a single PR fails with q̂ = 5%, a batch of 8 with q̂ = 1 − 0.95^8 = 34%.
    const single = adaptive({ concurrency: 20 });
    for (let n = 1; n <= 21; n++) single.submit(n);
    measured(single, 20, 0.05);
    failHead(single, 1);
    expect(windowOf(single)).toBe(19); // ⌊20 · 0.975⌋

    const batched = adaptive({ concurrency: 20, batch: true, batchingMinSize: 8 }, null);
    backlog(batched, 16);
    expect(startedGroups(batched)).toEqual([8, 8]);
    measured(batched, 20, 0.05);
    batched.built('r1');
    batched.fail('r1');
    expect(batched.snapshot.internal.bisections).toMatchObject([{ members: [1, 2, 3, 4, 5, 6, 7, 8] }]);
    expect(windowOf(batched)).toBe(16); // ⌊20 · 0.83⌋
  });

  it('a first failure, with nothing measured yet, leaves the window as it is', () => {
    const q = adaptive({ concurrency: 8 });
    for (let n = 1; n <= 9; n++) q.submit(n);
    failHead(q, 1);
    expect(windowOf(q)).toBe(8);
    expect(adaptiveStatus(q.snapshot)!.failureRate).toBeCloseTo(1 / 50);
  });

  it('grows by one per merged PR, up to the ceiling', () => {
    const q = adaptive({ concurrency: 4, adaptiveMinConcurrency: 1 });
    for (let n = 1; n <= 12; n++) q.submit(n);
    measured(q, 4, 0.9);
    failHead(q, 1);
    failHead(q, 2);
    failHead(q, 3);
    expect(windowOf(q)).toBe(1);
    expect(inFlight(q)).toBe(1);
    const windows: number[] = [];
    for (let n = 4; n <= 8; n++) {
      mergeHead(q, n);
      windows.push(windowOf(q));
    }
    expect(windows).toEqual([2, 3, 4, 4, 4]);
    expect(inFlight(q)).toBe(4);
  });

  it('a merged batch grows it by one per PR', () => {
    const q = adaptive({ concurrency: 6, adaptiveMinConcurrency: 1, batch: true, batchingMinSize: 3 }, null);
    backlog(q, 3);
    expect(startedGroups(q)).toEqual([3]);
    measured(q, 1, 0);
    mergeHead(q, 1);
    expect([1, 2, 3].map((n) => q.state(n))).toEqual(['MERGED', 'MERGED', 'MERGED']);
    expect(windowOf(q)).toBe(4);
  });

  it('a failed batch shrinks it once, when it goes to bisection, not again for the culprit found', () => {
    const q = adaptive(
      { concurrency: 8, adaptiveMinConcurrency: 1, batch: true, batchingMinSize: 2, bisectionConcurrency: 2 },
      null,
    );
    backlog(q, 2);
    expect(startedGroups(q)).toEqual([2]);
    measured(q, 8, 0.2); // batches of 2 fail with q̂ = 36%
    q.built('r1');
    q.fail('r1');
    expect(q.snapshot.internal.bisections).toMatchObject([{ members: [1, 2] }]);
    expect(windowOf(q)).toBe(6); // ⌊8 · 0.82⌋
    expect(creates(q)).toEqual([[1], [2]]);
    for (const r of ['r2', 'r3']) q.built(r);
    q.fail('r2');
    expect(q.state(1)).toBe('FAILED');
    expect(windowOf(q)).toBe(6);
    q.pass('r3');
    q.merged();
    expect(q.state(2)).toBe('MERGED');
    expect(windowOf(q)).toBe(7);
  });

  it('the floor is capped at the ceiling', () => {
    const q = adaptive({ concurrency: 1, adaptiveMinConcurrency: 3 });
    for (const n of [1, 2]) q.submit(n);
    expect(inFlight(q)).toBe(1);
    failHead(q, 1);
    expect(windowOf(q)).toBe(1);
    expect(inFlight(q)).toBe(1);
  });

  it('a settings change keeps the window within the new bounds; off forgets it, on starts afresh', () => {
    const q = adaptive({ concurrency: 8, adaptiveMinConcurrency: 1 });
    for (let n = 1; n <= 12; n++) q.submit(n);
    measured(q, 6, 0.5);
    expect(windowOf(q)).toBe(6);
    q.send({ kind: 'updateConfig', patch: { concurrency: 3 } });
    expect(windowOf(q)).toBe(3);
    q.send({ kind: 'updateConfig', patch: { concurrency: 8 } });
    expect(windowOf(q)).toBe(3); // a raised ceiling is grown into by merges
    q.send({ kind: 'updateConfig', patch: { adaptiveMinConcurrency: 5 } });
    expect(windowOf(q)).toBe(5);
    q.send({ kind: 'updateConfig', patch: { adaptiveMode: 'off' } });
    expect(adaptiveStatus(q.snapshot)).toBeNull();
    expect(q.snapshot.internal.adaptive).toBeNull();
    expect(inFlight(q)).toBe(8);
    q.send({ kind: 'updateConfig', patch: { adaptiveMode: 'on' } });
    expect(adaptiveStatus(q.snapshot)).toEqual({ concurrency: 8, batchSize: 1, failureRate: 0 });
  });

  it('refuses bad settings, naming them', () => {
    const q = adaptive();
    expect(q.reject({ kind: 'updateConfig', patch: { adaptiveMode: 'auto' as never } }).message).toBe(
      'adaptiveMode must be one of off, on, got "auto"',
    );
    expect(q.reject({ kind: 'updateConfig', patch: { adaptiveMinConcurrency: 0 } }).message).toBe(
      'adaptiveMinConcurrency must be an integer from 1 to 1000, got 0',
    );
  });
});

describe('adaptive batch size', () => {
  /** Expected p̂ after conclusions, by the documented rule: p̂ ← p̂ + (x − p̂)/50 from 0. */
  const ewma = (xs: number[]): number => xs.reduce((p, x) => p + (x - p) / 50, 0);

  it('measures p̂ from the PRs the queue concludes', () => {
    const q = adaptive({ concurrency: 2, adaptiveMinConcurrency: 1 });
    for (let n = 1; n <= 6; n++) q.submit(n);
    failHead(q, 1);
    expect(adaptiveStatus(q.snapshot)!.failureRate).toBeCloseTo(ewma([1]), 12);
    mergeHead(q, 2);
    mergeHead(q, 3);
    failHead(q, 4);
    expect(adaptiveStatus(q.snapshot)!.failureRate).toBeCloseTo(ewma([1, 0, 0, 1]), 12);
  });

  it.each([
    [0, 8, 8], // no failure measured yet: batchingMinSize
    [0.01, 8, 8], // (1 − p̂)/p̂ = 99: 64, capped at batchingMinSize
    [0.05, 16, 16], // 19: 16
    [0.05, 8, 8],
    [0.1, 16, 8], // 9: 8
    [0.2, 16, 4], // 4: 4
    [0.3, 16, 2], // 2.33: 2
    [0.45, 16, 1], // 1.22: 1
  ])('p̂ = %f, batchingMinSize %i → batches of %i while enough PRs wait', (failureRate, ceiling, size) => {
    const q = adaptive({ concurrency: 2, batch: true, batchingMinSize: ceiling }, null);
    q.snapshot = { ...q.snapshot, internal: { adaptive: { window: 2, failureRate } } };
    expect(adaptiveStatus(q.snapshot)!.batchSize).toBe(size);
    backlog(q, 2 * size);
    expect(startedGroups(q)).toEqual([size, size]);
  });

  it('a nearly empty queue tests PRs alone at once, without waiting for a batch', () => {
    const q = adaptive({ concurrency: 3, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 }, null);
    backlog(q, 3); // fewer than the 4 of a batch
    expect(startedGroups(q)).toEqual([1, 1, 1]);
    // The only wakeups asked for are the runs' testing timeouts, none for a batch deadline.
    const timeouts = q.snapshot.runs.map((r) => r.createdAt + 300 * 60_000);
    expect(q.effectsOf('scheduleWakeup').every((w) => timeouts.includes(w.at))).toBe(true);
  });

  it('what is left after the batches starts at once too', () => {
    const q = adaptive({ concurrency: 2, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 }, null);
    backlog(q, 5);
    expect(startedGroups(q)).toEqual([4, 1]);
  });

  it('the batch size follows measured failures: smaller after failures, back up after merges', () => {
    const q = adaptive({ concurrency: 1, adaptiveMinConcurrency: 1, batch: true, batchingMinSize: 8 });
    const size = () => adaptiveStatus(q.snapshot)!.batchSize;
    const rate = () => adaptiveStatus(q.snapshot)!.failureRate;
    expect(size()).toBe(8);
    for (const n of [1, 2, 3, 4, 5]) {
      q.submit(n); // alone: one PR waiting is fewer than a batch
      failHead(q, n);
    }
    expect(rate()).toBeCloseTo(ewma([1, 1, 1, 1, 1]), 12);
    expect(size()).toBe(8); // p̂ = 0.096: (1 − p̂)/p̂ = 9.4
    q.submit(6);
    failHead(q, 6);
    expect(size()).toBe(4); // p̂ = 0.114: 7.8
    for (let n = 7; n <= 11; n++) q.submit(n);
    expect(q.runOf(7).prNumbers).toEqual([7]);
    mergeHead(q, 7); // its pass frees the slot for the four waiting
    expect(q.runOf(8).prNumbers).toEqual([8, 9, 10, 11]);
    expect(size()).toBe(4); // p̂ = 0.112: 7.9
    mergeHead(q, 8);
    expect(rate()).toBeCloseTo(ewma([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]), 12);
    expect(size()).toBe(8); // p̂ = 0.103: 8.7
  });
});

describe('adaptive mode off', () => {
  /** The same events on a queue without the setting and one with it off must decide the same. */
  function play(config: Partial<QueueConfig>) {
    const q = new QueueDriver({ concurrency: 3, batch: true, batchingMinSize: 2, ...config });
    const log: unknown[] = [];
    const step = (f: () => void) => {
      f();
      log.push(q.effects, q.snapshot.entries, q.snapshot.runs);
    };
    for (let n = 1; n <= 7; n++) step(() => q.submit(n));
    step(() => q.built('r1'));
    step(() => q.fail('r1'));
    step(() => q.send({ kind: 'tick', at: q.now + 5 * 60_000 }));
    for (let i = 0; i < 100; i++) {
      const merge = q.effectsOf('merge')[0];
      const creating = q.snapshot.runs.find((r) => r.status === 'creating');
      const testing = q.snapshot.runs.find((r) => r.status === 'in_progress');
      if (merge) step(() => q.merged(merge));
      else if (creating) step(() => q.built(creating.id));
      else if (testing) step(() => q.pass(testing.id));
      else break;
    }
    expect(q.snapshot.entries.map((e) => e.state)).toEqual(Array(7).fill('MERGED'));
    return { log, snapshot: q.snapshot };
  }

  it('decides exactly as a queue without the setting', () => {
    const without = play({});
    const off = play({ adaptiveMode: 'off', adaptiveMinConcurrency: 1 });
    expect(off.log).toEqual(without.log);
    expect(off.snapshot.internal).toEqual(without.snapshot.internal);
    expect(off.snapshot.internal.adaptive).toBeNull();
    expect(adaptiveStatus(off.snapshot)).toBeNull();
  });
});
