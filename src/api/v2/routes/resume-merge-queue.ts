import { queueStateChange } from './queue-state-change.js';

/** POST /v2/merge-queues/{id}/resume: a paused or draining queue runs again. */
export const resumeMergeQueue = queueStateChange('resume', 'RUNNING', 'Resume a paused or draining merge queue');
