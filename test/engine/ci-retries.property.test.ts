/**
 * Property test of retries decided by evidence (ci-retries.ts): single mode, flaky CI, `ciRetries`
 * 1–2, optimistic merging off or without a pending failure depth (so failed groups step out of the
 * chain while their retry runs). Random arrivals and report orders against the model forge and CI of
 * harness.ts, which checks after every decision that every merge is of a commit whose CI passed and
 * that extends the target by exactly the merged PRs, and that no bad PR merges. This test adds the
 * order rule: without batching nothing is out of the merge order, so every merge takes exactly the
 * PRs at the front of the queue. After the sequence everything drains with passing CI.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queueOrder, type EngineEvent, type QueueConfig } from '../../src/engine/index.js';
import { Harness } from './harness.js';

const PRS = 8;

/** The harness, also checking that each merge asked for takes the PRs at the front of the queue. */
class OrderedHarness extends Harness {
  readonly orderViolations: string[] = [];
  private lastMerge: string | null = null;

  override send(ev: EngineEvent): boolean {
    const ok = super.send(ev);
    const merge = (this.snapshot.internal as { merge?: { runId: string; prs: { number: number }[] } | null }).merge;
    if (ok && merge && merge.runId !== this.lastMerge) {
      this.lastMerge = merge.runId;
      seen.mergesChecked++;
      const front = queueOrder(this.snapshot, { includeNotReady: false })
        .slice(0, merge.prs.length)
        .map((e) => e.prNumber)
        .sort((a, b) => a - b);
      const merging = merge.prs.map((p) => p.number).sort((a, b) => a - b);
      if (front.join(',') !== merging.join(','))
        this.orderViolations.push(`merge of ${merging} while the front of the queue is ${front}`);
    }
    if (!merge) this.lastMerge = null;
    return ok;
  }
}

type Action = { t: 'deliver'; i: number; flake: boolean } | { t: 'submit'; pr: number } | { t: 'time'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      t: fc.constant('deliver' as const),
      i: fc.nat(),
      flake: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('submit' as const), pr: fc.integer({ min: 1, max: PRS }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 40 * 60_000 }) }),
  },
);

const config: fc.Arbitrary<Partial<QueueConfig>> = fc.record({
  concurrency: fc.integer({ min: 2, max: 5 }),
  ciRetries: fc.integer({ min: 1, max: 2 }),
  pendingFailureDepth: fc.integer({ min: 0, max: 1 }),
  canOptimisticallyMerge: fc.constant(false),
});

/** What the runs exercised, summed: groups stepped out, vouched for by a run behind, readmitted; merges whose order was checked. */
const seen = { steppedOut: 0, vouched: 0, readmitted: 0, mergesChecked: 0 };

const property = fc.property(
  fc.array(action, { minLength: 10, maxLength: 150 }),
  config,
  fc.subarray([1, 2, 3, 4, 5, 6, 7, 8], { maxLength: 3 }),
  fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
  (list, cfg, badList, picks) => {
    const h = new OrderedHarness({ ...cfg, testingTimeoutMinutes: 60 }, new Set(badList));
    for (const a of list) {
      if (a.t === 'deliver') h.deliver(a.i, a.flake);
      else if (a.t === 'submit') h.submit(a.pr, { ready: true });
      else {
        h.now += a.ms;
        h.send({ kind: 'tick', at: h.now });
      }
    }
    const drained = h.drain(() => ['t'], picks);
    expect(h.violations).toEqual([]);
    expect(h.orderViolations).toEqual([]);
    expect(drained, JSON.stringify(h.snapshot.entries.map((e) => [e.prNumber, e.state, e.lastReason]))).toBe(true);
    for (const e of h.snapshot.entries) {
      if (e.state === 'MERGED' && badList.includes(e.prNumber)) throw new Error(`bad PR ${e.prNumber} merged`);
      for (const t of e.timeline) {
        if (t.to === 'PENDING_FAILURE' && t.detail?.includes('until its retry decides')) seen.steppedOut++;
        if (t.reason === 'SUCCESSOR_TEST_RUN_PASSED') seen.vouched++;
        if (t.from === 'PENDING_FAILURE' && (t.to === 'PENDING' || t.to === 'TESTS_PASSED')) seen.readmitted++;
      }
    }
  },
);

/** More runs for a deeper search: ENGINE_PROPERTY_RUNS=5000 npx vitest run test/engine/ci-retries.property.test.ts */
const runs = Number(process.env.ENGINE_PROPERTY_RUNS ?? 300);

describe('retries decided by evidence: properties', () => {
  it('never merges an untested tree or a bad PR, merges in queue order, never gets stuck', () =>
    fc.assert(property, { numRuns: runs }));

  it('the runs stepped groups out, vouched for them by a run behind, readmitted some, and merged', () => {
    const before = { ...seen };
    fc.assert(property, { numRuns: 300, seed: 7 });
    expect(seen.steppedOut - before.steppedOut).toBeGreaterThan(0);
    expect(seen.vouched - before.vouched).toBeGreaterThan(0);
    expect(seen.readmitted - before.readmitted).toBeGreaterThan(0);
    expect(seen.mergesChecked - before.mergesChecked).toBeGreaterThan(0);
  });
});
