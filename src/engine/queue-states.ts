/**
 * What each queue state means for the PRs in it, in words (and what an unread target branch means): the one source of these sentences for the
 * PRs' `waitingOn` (eta.ts), their reasons (pr-reason.ts) and the dashboard's state
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

/**
 * Why nothing is tested in a queue whose target branch's commit is not known: the forge has not
 * answered for it since the queue was created (createQueue refuses a branch the forge says it lacks).
 * The one source of this sentence for the PRs' `waitingOn` (eta.ts) and their reasons (pr-reason.ts).
 */
export const TARGET_UNREAD =
  'the target branch could not be read from the forge yet (the forge could not be reached, or has no such branch): nothing is tested until it is, and it is read again while PRs wait; if the branch does not exist, create it, or delete this queue and create one for the right branch';
/** TARGET_UNREAD as a sentence of its own (waitingOn, the dashboard's queue head). */
export const TARGET_UNREAD_SENTENCE = `${TARGET_UNREAD[0]!.toUpperCase()}${TARGET_UNREAD.slice(1)}.`;

/** Whether a queue in this state admits PRs that became ready (only a running queue does). */
export const admitsPrs = (state: QueueState): boolean => state === 'RUNNING';
