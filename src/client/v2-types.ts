/**
 * Answers of the v2 operations the client calls (docs/api-v2.md), with the fields greenline sends.
 * Trunk may add fields and enum members within v2: read what you know, ignore the rest.
 */

/** Every v2 list: a page and the cursor of the next one. */
export interface V2Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
  total?: number;
}

export type V2EntryState =
  | 'notReady'
  | 'pending'
  | 'testing'
  | 'testsPassed'
  | 'merged'
  | 'failed'
  | 'cancelled'
  | 'pendingFailure'
  | (string & {});

export interface V2Repository {
  id: string;
  provider: string;
  path: string;
  host: string | null;
  url: string;
}

export interface V2MergeQueue {
  id: string;
  repositoryId: string;
  targetBranch: string;
  state: string;
  mode: 'queue' | 'graph' | (string & {});
  managedState: string;
  config: Record<string, unknown>;
}

export interface V2QueuedPullRequest {
  id: string;
  number: number;
  sha: string;
  title: string;
  url?: string;
}

export interface V2MergeQueueOrder {
  mode: string;
  queueState: string;
  batchingEnabled: boolean;
  isolationResolved: boolean;
  hasCycle: boolean;
  batches: {
    verificationRunId: string;
    state: V2EntryState;
    isBisection: boolean;
    pullRequests: V2QueuedPullRequest[];
  }[];
  pending: {
    pullRequest: V2QueuedPullRequest;
    schedulability: 'schedulable' | 'heldBehindFailure' | (string & {});
    predictedBatch?: number;
    directlyAhead: V2QueuedPullRequest[];
    heldBy: V2QueuedPullRequest[];
  }[];
  awaitingAdmission: V2QueuedPullRequest[];
  awaitingAdmissionTotal: number;
}

export interface V2MergeGraph {
  nodes: {
    pullRequestNumber: number;
    title: string;
    author: string;
    state: V2EntryState;
    priorityValue: number;
    priorityName?: string;
    skipsTheLine: boolean;
    allowsBatching: boolean;
    verificationRunId?: string;
    isBisection: boolean;
    impactedTargets?: string[];
    totalImpactedTargets?: number;
  }[];
  edges: {
    fromPullRequestNumber: number;
    toPullRequestNumber: number;
    commonImpactedTargets?: string[];
    totalCommonImpactedTargets?: number;
  }[];
}

export interface V2PullRequest {
  id: string;
  repositoryId: string;
  number: number;
  title: string;
  state: string;
  isCurrentlySubmittedToQueue: boolean;
  queueEntry?: { id: string; mergeQueueId: string; state: V2EntryState; priorityName?: string };
}

export interface V2StateTransition {
  pullRequestId: string;
  state: V2EntryState;
  changedAt: string;
  /** Why, UPPER_SNAKE (`PREREQUISITE_MERGE_ITEM_FAILED`); null for testing and pendingFailure. */
  reason: string | null;
  verificationRunId?: string;
}
