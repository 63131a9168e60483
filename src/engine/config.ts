import { QueueState, type QueueConfig, type QueueSnapshot, type RepoRef } from './types.js';

/**
 * Defaults for a queue created through the API (contract §4 and §3): single mode, concurrency 1,
 * 5-hour testing timeout, no batching, no optimistic merging, squash merges, direct merge off.
 * greenline's extension settings (`adaptiveMode`, `adaptiveMinConcurrency`) are absent: adaptive mode is off.
 */
export const DEFAULT_QUEUE_CONFIG: Readonly<QueueConfig> = Object.freeze({
  mode: 'single',
  concurrency: 1,
  testingTimeoutMinutes: 300,
  pendingFailureDepth: 0,
  canOptimisticallyMerge: false,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  bisectionConcurrency: 1,
  optimizationMode: 'off',
  mergeMethod: 'squash',
  directMergeMode: 'off',
  createPrsForTestingBranches: true,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  requiredStatuses: null,
  extensionEnabled: true,
  enqueueingLabel: 'trunk-merge-queue-submit',
  labelCommandsEnabled: true,
  stateLabelsEnabled: false,
  notReadyTimeoutHours: 0,
  testBranchConstructionMode: 'rename_temp_branch',
} satisfies QueueConfig);

/** A new, empty, RUNNING queue. `bisectionConcurrency` follows `concurrency` unless given. */
export function newQueueSnapshot(
  repo: RepoRef,
  targetBranch: string,
  config: Partial<QueueConfig> = {},
  testBranchPrefix = 'greenline-merge',
): QueueSnapshot {
  const merged: QueueConfig = { ...DEFAULT_QUEUE_CONFIG, ...config };
  if (config.bisectionConcurrency === undefined) merged.bisectionConcurrency = merged.concurrency;
  return {
    repo,
    targetBranch,
    testBranchPrefix,
    state: QueueState.RUNNING,
    config: merged,
    targetSha: null,
    entries: [],
    runs: [],
    internal: {},
  };
}
