/** What the simulator counts as a restart: a PR's testing starting over, not a step of its own bisection. */
import { describe, expect, it } from 'vitest';
import type { Entry, TimelineItem } from '../../src/engine/index.js';
import { MetricsCollector } from '../../src/sim/metrics.js';

const START = Date.UTC(2025, 0, 6, 9);
const bisectionRuns = new Set(['b1', 'b2']);

/** Restarts counted for an entry with this timeline (the rest of the entry does not matter here). */
function restarts(timeline: Omit<TimelineItem, 'at'>[]): number {
  const m = new MetricsCollector(START, (id) => bisectionRuns.has(id));
  m.entryRestarts({ timeline: timeline.map((t, i) => ({ ...t, at: START + i * 60_000 })) } as Entry);
  return m.restarts.length;
}

describe('restarts', () => {
  it('count a run stopped because a group ahead failed, was cancelled or a cleared part went ahead of it', () => {
    expect(
      restarts([
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'm1' },
        { from: 'TESTING', to: 'PENDING', reason: 'PREREQUISITE_MERGE_ITEM_FAILED', runId: 'm1' },
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'm2' },
        { from: 'TESTING', to: 'PENDING', reason: 'BISECTION_TEST_RUN_PASSED', runId: 'm2' },
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'm3' },
        { from: 'TESTING', to: 'TESTS_PASSED', reason: 'TEST_RUN_PASSED', runId: 'm3' },
        { from: 'TESTS_PASSED', to: 'PENDING', reason: 'PREREQUISITE_MERGE_ITEM_CANCELLED', runId: 'm3' },
      ]),
    ).toBe(3);
  });

  it("leave out the steps of the PR's own bisection: the batch going to bisection, a part splitting, a part passing", () => {
    expect(
      restarts([
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'm1' },
        { from: 'TESTING', to: 'PENDING_FAILURE', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: 'm1' },
        { from: 'PENDING_FAILURE', to: 'PENDING', reason: 'BISECTION_REQUIRED', runId: 'm1' },
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'b1' },
        { from: 'TESTING', to: 'PENDING', reason: 'BISECTION_REQUIRED', runId: 'b1' },
        { from: 'PENDING', to: 'TESTING', reason: 'TEST_RUN_STARTED', runId: 'b2' },
        { from: 'TESTING', to: 'PENDING', reason: 'BISECTION_TEST_RUN_PASSED', runId: 'b2' },
      ]),
    ).toBe(0);
  });
});

describe('the estimate range', () => {
  /** The share of PRs counted inside their range, for merges at these offsets (ms) from START + 60 min. */
  function inRange(range: { p10: number; p90: number }, offsets: number[]): number {
    const m = new MetricsCollector(START, () => false);
    const base = START + 60 * 60_000;
    offsets.forEach((offset, i) => {
      const at = base + offset;
      const e = {
        prNumber: i + 1,
        state: 'MERGED',
        submittedAt: START + 30 * 60_000,
        stateChangedAt: at,
        timeline: [],
      };
      m.entryDone(e as unknown as Entry, false, base, { p10: base + range.p10, p90: base + range.p90 });
    });
    const { summary } = m.summarize({
      seed: 1,
      warmupMinutes: 0,
      windowEnd: 600,
      endedAt: base,
      left: 0,
      invariantBreaches: 0,
      adaptive: null,
      wallMs: 0,
    });
    return summary.eta!.inRange;
  }

  it('holds a merge in the minute of p10 or of p90, as the range is shown, and not one a minute beyond', () => {
    // A range of one minute, 14:00–14:00: a merge at 14:00:00.001 and one at 14:00:59 are inside it.
    expect(inRange({ p10: 0, p90: 0 }, [1, 59_000])).toBe(1);
    expect(inRange({ p10: 0, p90: 0 }, [60_000, -1])).toBe(0);
    expect(inRange({ p10: -10 * 60_000, p90: 10 * 60_000 }, [-10 * 60_000, 0, 10 * 60_000 + 30_000, 11 * 60_000])).toBe(
      0.75,
    );
  });
});
