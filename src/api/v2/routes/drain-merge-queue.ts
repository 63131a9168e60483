import { queueStateChange } from './queue-state-change.js';

/** POST /v2/merge-queues/{id}/drain: the queue finishes what it holds and takes no new PRs. */
export const drainMergeQueue = queueStateChange('drain', 'DRAINING', 'Drain a merge queue');
