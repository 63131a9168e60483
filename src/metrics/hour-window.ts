/**
 * The sliding hour of contract §7, measured from recorded transitions (table `transitions`): the
 * window is (now − 1 h, now], an hour ago excluded. A PR's history is walked oldest first; what ended inside the window is reported, measured from where it
 * began, even before the window:
 *
 *   PENDING → TESTING         wait: since the PR last entered PENDING (admission or a restart)
 *   TESTING → anything        test: since it entered TESTING; → PENDING is also a restart
 *   → MERGED/FAILED/CANCELLED conclusion; time in queue since admission (the trip's first PENDING),
 *                             none for a trip that never left NOT_READY
 *   → NOT_READY               a new trip: nothing carries over
 *
 * queue_type: waits, test spells and restarts belong to the queue type of their test run. A
 * conclusion belongs to `bisection` when the PR was in a bisection when it left: sent there by
 * BISECTION_REQUIRED, and neither cleared (BISECTION_TEST_RUN_PASSED) nor started in a main run since.
 */
import { PrState, isTerminal, type PrState as State, type QueueType } from '../engine/types.js';
import type { MetricsTransition } from '../store/metrics-transitions.js';
import type { Conclusion } from './queue-metrics.js';

export interface HourSink {
  conclusion(queueType: QueueType, conclusion: Conclusion, secondsInQueue: number | null): void;
  restart(queueType: QueueType): void;
  wait(queueType: QueueType, seconds: number): void;
  test(queueType: QueueType, seconds: number): void;
}

const CONCLUSION_OF: Partial<Record<State, Conclusion>> = {
  [PrState.MERGED]: 'merged',
  [PrState.FAILED]: 'failed',
  [PrState.CANCELLED]: 'cancelled',
};

const runType = (t: MetricsTransition): QueueType => (t.bisection ? 'bisection' : 'main');
const seconds = (from: number, to: number): number => (to - from) / 1000;

/** Reports one PR's transitions (oldest first, all its trips) that fall after `after`. */
export function walkPrHistory(rows: readonly MetricsTransition[], after: number, sink: HourSink): void {
  let admittedAt: number | null = null;
  let pendingAt: number | null = null;
  let testing: { at: number; type: QueueType } | null = null;
  let inBisection = false;
  for (const t of rows) {
    const to = t.to as State;
    const recent = t.at > after;
    if (t.from === PrState.TESTING) {
      const type = testing?.type ?? runType(t);
      if (recent && testing !== null) sink.test(type, seconds(testing.at, t.at));
      if (recent && to === PrState.PENDING) sink.restart(type);
      testing = null;
    }
    if (to === PrState.NOT_READY) {
      admittedAt = pendingAt = testing = null;
      inBisection = false;
    } else if (to === PrState.PENDING) {
      pendingAt = t.at;
      admittedAt ??= t.at;
      if (t.reason === 'BISECTION_REQUIRED') inBisection = true;
      if (t.reason === 'BISECTION_TEST_RUN_PASSED') inBisection = false;
    } else if (to === PrState.TESTING) {
      if (recent && pendingAt !== null) sink.wait(runType(t), seconds(pendingAt, t.at));
      testing = { at: t.at, type: runType(t) };
      inBisection = t.bisection;
    } else if (isTerminal(to)) {
      const type = inBisection ? 'bisection' : 'main';
      if (recent) sink.conclusion(type, CONCLUSION_OF[to]!, admittedAt === null ? null : seconds(admittedAt, t.at));
      admittedAt = pendingAt = testing = null;
      inBisection = false;
    }
  }
}
