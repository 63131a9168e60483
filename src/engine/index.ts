/** The queue engine's public API: a pure decision function over plain data, and its helpers. */
export { decide, decideAll, groupKey, type GroupableEvent, type GroupDecision } from './decide.js';
export { queueOrder, comparePending } from './ordering.js';
export {
  readiness,
  isReady,
  sameUnmergeable,
  whyNotReady,
  NOT_READY_WHY,
  type NotReadyReason,
} from './readiness.js';
export { QUEUE_STATE_MEANING, TARGET_UNREAD, TARGET_UNREAD_SENTENCE, admitsPrs } from './queue-states.js';
export { parsePriority, priorityNameOf, type ParsedPriority } from './priority.js';
export { validateConfigPatch, MAX_CONCURRENCY } from './config-validation.js';
export { newQueueSnapshot, DEFAULT_QUEUE_CONFIG } from './config.js';
export { waitsToStart } from './direct-merge.js';
export { runsInUse } from './settle.js';
export { testBranchName, testBranchPattern } from './test-branch.js';
export { isInFlight } from './runs.js';
export { testingTimeoutInForce, testingTimeoutInForceOf, MAX_CI_RETRIES } from './ci-retries.js';
export { adaptiveStatus, DEFAULT_ADAPTIVE_MIN_CONCURRENCY, type AdaptiveStatus } from './adaptive.js';
export { laneHeads, sharedTargets } from './parallel-graph.js';
export { dependencyGraph } from './topology.js';

export { laneText } from './lane-words.js';
export { queueOutlook, WAITING_CODES, type PrOutlook, type WaitingCode, type WaitingOn } from './eta.js';
export { queueStatistics, STATISTICS_RUNS, type QueueStatistics, type FinishedRun } from './eta-statistics.js';
export {
  commitMessageFor,
  gitMessage,
  messageFromDescription,
  titlePatternRefusal,
  type CommitMessage,
  type CommitMessageSettings,
  type CommitPr,
} from './commit-message.js';
export {
  freezeProblem,
  freezeStatus,
  frozenSeconds,
  isFreezeExempt,
  labelsChanged,
  DEFAULT_FREEZE_REASON,
  type FreezeInterval,
  type FreezeStatus,
} from './freeze.js';
export {
  statusFlakiness,
  quarantinedStatusesOf,
  autoQuarantinedOf,
  gatingStatuses,
  STATUS_RESULTS_KEPT,
  DEFAULT_AUTO_QUARANTINE_THRESHOLD,
  DEFAULT_AUTO_QUARANTINE_MIN_RESULTS,
  type StatusFlakiness,
} from './quarantine.js';
export * from './types.js';
