import { queueStateChange } from './queue-state-change.js';

/** POST /v2/merge-queues/{id}/pause: the queue stops starting tests. */
export const pauseMergeQueue = queueStateChange('pause', 'PAUSED', 'Pause a merge queue');
