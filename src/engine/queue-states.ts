/**
 * What each queue state means for the PRs in it, in words: the one source of these sentences for the
 * PRs' `waitingOn` (eta.ts), their reasons (app/read-models/pr-reason.ts) and the dashboard's state
 * controls (web/queue-state.js, held to the same words by test/web/queue-state.test.ts).
 */
import type { QueueState } from './types.js';

export const QUEUE_STATE_MEANING: Record<QueueState, string> = {
  RUNNING: 'The queue is running: ready PRs are admitted, tested and merged.',
  PAUSED:
    'The queue is paused: no PR is admitted, no test run starts and nothing merges until it is resumed; results of runs in flight are still recorded.',
  DRAINING:
    'The queue is draining: the PRs already admitted are tested and merged; new submissions are refused and PRs not yet admitted wait until it is resumed.',
  SWITCHING_MODES:
    'The queue is switching modes: the PRs already admitted are tested and merged first; the others are admitted in the new mode after them.',
};

/** Whether a queue in this state admits PRs that became ready (only a running queue does). */
export const admitsPrs = (state: QueueState): boolean => state === 'RUNNING';
