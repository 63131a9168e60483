/**
 * Domain types of the queue engine. Everything here is plain, JSON-serialisable data.
 *
 * Glossary
 * - PR: a pull request on a forge, identified by its number within a repository.
 * - Queue: one merge queue per (repository, target branch). It has a state and a configuration.
 * - Entry: one PR's trip through a queue, from submission to a terminal state (MERGED, FAILED,
 *   CANCELLED). Resubmitting a PR after a terminal state starts a new trip: same entry id, trip + 1.
 * - Group: the PRs tested together by one test run: one PR, a batch, or a bisection subset.
 * - Batch: a group of several PRs, formed when the queue's `batch` setting is on.
 * - Test run: one CI verification of one group on a predicted base: the target branch sha plus every
 *   group ahead of it that is not known to have failed (single mode) or its graph ancestors (parallel).
 *   Its id is a UUID that is also the tail of the test branch name.
 * - Bisection: splitting a failed batch into halves that are tested separately (queue type
 *   `bisection`, on the `bisectionConcurrency` budget) until the culprit is found.
 * - Lane: in parallel mode, a chain of PRs whose impacted targets overlap; lanes test and merge
 *   independently of each other.
 *
 * Times are milliseconds since the Unix epoch, always supplied by the caller on each event.
 */

import type { CommitMessageSettings } from './commit-message.js';
// ---------------------------------------------------------------- closed sets

export const PrState = {
  NOT_READY: 'NOT_READY',
  PENDING: 'PENDING',
  TESTING: 'TESTING',
  TESTS_PASSED: 'TESTS_PASSED',
  PENDING_FAILURE: 'PENDING_FAILURE',
  MERGED: 'MERGED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
} as const;
export type PrState = (typeof PrState)[keyof typeof PrState];

export const TERMINAL_STATES: readonly PrState[] = [PrState.MERGED, PrState.FAILED, PrState.CANCELLED];
export const isTerminal = (s: PrState): boolean => TERMINAL_STATES.includes(s);
/** The states whose tests can be restarted (contract §5.3): TESTING (test again in place), PENDING_FAILURE. */
export const RESTARTABLE_STATES: readonly PrState[] = [PrState.TESTING, PrState.PENDING_FAILURE];

/**
 * What a PR's entry accepts now, by its state: cancel and a new priority while it is in the queue,
 * restart while its tests run or fail, a new submission once it failed or was cancelled (a merged PR
 * is in its base: submitting it again is refused).
 */
export function allowedActions(s: PrState): {
  cancel: boolean;
  restartTests: boolean;
  changePriority: boolean;
  submitAgain: boolean;
} {
  const active = !isTerminal(s);
  return {
    cancel: active,
    restartTests: RESTARTABLE_STATES.includes(s),
    changePriority: active,
    submitAgain: s === PrState.FAILED || s === PrState.CANCELLED,
  };
}

export const QueueState = {
  RUNNING: 'RUNNING',
  PAUSED: 'PAUSED',
  DRAINING: 'DRAINING',
  SWITCHING_MODES: 'SWITCHING_MODES',
} as const;
export type QueueState = (typeof QueueState)[keyof typeof QueueState];
/** The queue states a client may set; SWITCHING_MODES is entered by the engine only. */
export type SettableQueueState = Exclude<QueueState, 'SWITCHING_MODES'>;

export const QueueMode = { SINGLE: 'single', PARALLEL: 'parallel' } as const;
export type QueueMode = (typeof QueueMode)[keyof typeof QueueMode];

export const MergeMethod = { MERGE_COMMIT: 'merge_commit', SQUASH: 'squash', REBASE: 'rebase' } as const;
export type MergeMethod = (typeof MergeMethod)[keyof typeof MergeMethod];

export type DirectMergeMode = 'off' | 'always';
export type AdaptiveMode = 'off' | 'on';
export type AutoQuarantineMode = 'off' | 'on';
export type OptimizationMode = 'off' | 'bisection_skip_redundant_tests';
export type TestBranchConstructionMode = 'rename_temp_branch' | 'push_new_branch_from_temp';
export type Mergeability = 'unspecified' | 'in_progress' | 'mergeable' | 'not_mergeable';
/**
 * Why the forge calls a PR `not_mergeable`, when it tells: it conflicts with the target branch (with
 * the conflicting files when the forge names them), it is a draft, or the forge blocks it (GitHub
 * branch protection; `detail` says why in words when the forge tells more, e.g. a GitHub stack).
 */
export interface Unmergeable {
  cause: 'conflict' | 'draft' | 'blocked';
  files?: string[];
  detail?: string;
}
export type QueueType = 'main' | 'bisection';

/** Priority names and their values (contract §6.8). 0 is the highest priority. */
export const PRIORITY_VALUES = { urgent: 0, high: 10, medium: 100, low: 200 } as const;
export type PriorityName = keyof typeof PRIORITY_VALUES;
export const DEFAULT_PRIORITY: PriorityName = 'medium';

/** Why an entry was submitted (webhook `submitted_reason`). */
export type SubmittedReason = 'USER_REQUESTED' | 'TRUNK_ADMIN_REQUESTED' | 'API_REQUESTED';

/** Why an entry went back to PENDING (webhook `queued_reason`). */
export type QueuedReason =
  | 'MERGE_ITEM_NOW_READY'
  | 'MANUAL_PUSH_TO_TARGET_BRANCH'
  | 'PREREQUISITE_MERGE_ITEM_CANCELLED'
  | 'PREREQUISITE_MERGE_ITEM_FAILED'
  | 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED'
  | 'TESTS_RESTARTED_BY_USER'
  | 'TESTS_RESTARTED_BY_API_REQUEST'
  | 'SKIP_THE_LINE_INTERRUPTED'
  | 'BISECTION_REQUIRED'
  | 'BISECTION_TEST_RUN_PASSED';

/** Why a run or an entry failed (webhook `failure_reason`). */
export type FailureReason =
  | 'START_TEST_RUN_INVALID_EVENT'
  | 'START_TEST_RUN_MERGE_CONFLICT'
  | 'START_TEST_RUN_CONFIG_NOT_FOUND'
  | 'START_TEST_RUN_CONFIG_PARSING_FAILURE'
  | 'START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES'
  | 'START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES'
  | 'START_TEST_RUN_CONFIG_BAD_VERSION'
  | 'START_TEST_RUN_NO_REQUIRED_STATUSES'
  | 'TEST_RUN_REQUIRED_STATUS_FAILED'
  | 'TEST_RUN_TIMEOUT'
  | 'MERGE_REFUSED'
  | 'DIRECT_MERGE_REFUSED'
  | 'PR_UPDATED_AT_MERGE_TIME'
  | 'START_TEST_RUN_RETRY_EXHAUSTED'
  | 'START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED'
  | 'TEST_RUN_FAILED_BY_OPTIMIZATION'
  /** Merging a PR into the commit it is tested on changes nothing: its changes are already there. */
  | 'START_TEST_RUN_ALREADY_IN_TARGET'
  /** CI cancelled the run's checks, and again when they were run once more (cancelled is not failed). */
  | 'TEST_RUN_CANCELLED_BY_CI'
  /** A required status was not reported at all within `requiredStatusStartTimeoutMinutes`. */
  | 'REQUIRED_STATUS_NEVER_STARTED'
  /** Every required status was skipped on the test commit: nothing was tested (unless `allSkippedPasses`). */
  | 'REQUIRED_STATUSES_SKIPPED';

/** Why an entry was cancelled (webhook `cancellation_reason`). */
export type CancellationReason =
  | 'USER_REQUESTED'
  | 'API_REQUESTED'
  | 'PR_CLOSED'
  | 'PR_PUSHED_TO'
  | 'PR_BASE_BRANCH_CHANGED'
  | 'PR_CONVERTED_TO_DRAFT'
  | 'TRUNK_ADMIN_REQUESTED'
  | 'NOT_READY_TIMEOUT_EXPIRED'
  | 'QUEUE_DELETED';

/** Why an entry was merged (webhook `merged_reason`). */
export type MergedReason = 'MERGE_GRAPH_MERGE' | 'MANUAL_MERGE' | 'MERGE_GRAPH_DIRECT_MERGE';

/** Why an entry entered TESTS_PASSED. */
export type PassedReason =
  | 'TEST_RUN_PASSED'
  /** The run's checks failed or were cancelled, then passed when run again on the same commit: flaky. */
  | 'TEST_RUN_PASSED_AFTER_RETRY'
  | 'SUCCESSOR_TEST_RUN_PASSED'
  | 'PASSED_BY_OPTIMIZATION';

export type TransitionReason =
  | SubmittedReason
  | QueuedReason
  | FailureReason
  | CancellationReason
  | MergedReason
  | PassedReason
  | 'TEST_RUN_STARTED';

// ---------------------------------------------------------------- configuration

/** Every queue setting of contract §4, with the JSON names of the v1 API. */
export interface QueueConfig {
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  pendingFailureDepth: number;
  canOptimisticallyMerge: boolean;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  bisectionConcurrency: number;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  directMergeMode: DirectMergeMode;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /** Manual override of the checks that must pass on a test branch; null = no override. */
  requiredStatuses: string[] | null;
  extensionEnabled: boolean;
  enqueueingLabel: string;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
  /** Cancel entries stuck in NOT_READY longer than this; 0 = never. */
  notReadyTimeoutHours: number;
  testBranchConstructionMode: TestBranchConstructionMode;
  /**
   * greenline extension, absent = 'off' (and in configurations stored before it existed). 'on':
   * `concurrency` becomes the ceiling of a window that grows on merges and shrinks on failures, and
   * batches are sized from the measured failure rate (adaptive.ts).
   */
  adaptiveMode?: AdaptiveMode;
  /** greenline extension: the floor of the adaptive window, capped at `concurrency`; absent = 2. */
  adaptiveMinConcurrency?: number;
  /**
   * greenline extension, absent = 0: how many times a test run whose required statuses failed is run
   * again on the same test commit before the failure counts (ci-retries.ts).
   */
  ciRetries?: number;
  /**
   * greenline extension, absent = 'on' (it acts only with `batch`): a PR whose author's recent PRs
   * failed in this queue far more often than the others' is tested in a group of its own (risk.ts).
   */
  riskAwareBatching?: RiskAwareBatching;
  /**
   * greenline extension, absent = 0 (off): a run fails with REQUIRED_STATUS_NEVER_STARTED when a
   * required status was not reported at all this many minutes after its CI started.
   */
  requiredStatusStartTimeoutMinutes?: number;
  /**
   * greenline extension, absent = false: a test run whose required statuses were all skipped (CI ran
   * none of them, e.g. workflows that skip their jobs) passes; otherwise it fails with
   * REQUIRED_STATUSES_SKIPPED (app/executor/ci-outcome.ts).
   */
  allSkippedPasses?: boolean;
  /**
   * greenline extension, absent = 1: how many try builds of the queue's PRs (app/try-builds.ts) are
   * built and tested at once, on runner slots of their own.
   */
  tryConcurrency?: number;
  /**
   * greenline extension (`testingTimeoutMinutes: "auto"` on the wire), absent = false: the testing
   * timeout follows the durations of the queue's recent successful runs; `testingTimeoutMinutes`
   * stays the value used until enough runs are known (ci-retries.ts, `testingTimeoutInForce`).
   */
  testingTimeoutAuto?: boolean;
  /** greenline extension: scheduled freezes and one-off freezes (freeze.ts); absent = never frozen. */
  freezes?: FreezeSettings | null;
  /**
   * greenline extension, absent = none: required statuses that do not gate. Their failure neither
   * fails a run nor blocks its merge; it is still reported and counted (quarantine.ts).
   */
  quarantinedStatuses?: string[];
  /**
   * greenline extension, absent = 'off'. 'on': a required status flaky in at least
   * `autoQuarantineThreshold` of its recent results is quarantined, and the quarantine lifted when
   * newer results fall under half the threshold (quarantine.ts).
   */
  autoQuarantine?: AutoQuarantineMode;
  /** greenline extension: the flaky share (0–1, exclusive of 0) that quarantines a status; absent = 0.1. */
  autoQuarantineThreshold?: number;
  /** greenline extension: results a status needs before it is quarantined or lifted; absent = 20. */
  autoQuarantineMinResults?: number;
  /** greenline extension: templates of the commits the queue lands, and their title pattern (commit-message.ts); absent = the forge's own. */
  commitMessages?: CommitMessageSettings | null;
  /**
   * greenline extension: impacted targets computed from each PR's changed paths at its admission,
   * when none were uploaded; absent or null = off.
   */
  impactedTargetsFromPaths?: PathTargets | null;
}

/**
 * Target names, each with the path globs that impact it; `fallback`: the targets of a PR whose paths
 * match no glob (absent = every target).
 */
export interface PathTargets {
  targets: Record<string, string[]>;
  fallback?: string[];
}

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * A recurring freeze in a time zone: either on `days` from `start` to `end` (local `HH:MM`; `end`
 * at or before `start` runs into the next day, `24:00` is midnight at the end of the day), or from
 * each time a `cron` expression fires for `durationMinutes`.
 */
export interface FreezeWindow {
  days?: Weekday[];
  start?: string;
  end?: string;
  cron?: string;
  durationMinutes?: number;
  /** IANA time zone name, e.g. Europe/Berlin. */
  timeZone: string;
  reason?: string;
}

/** A freeze from `from` until `until` (ISO-8601 times). */
export interface OneOffFreeze {
  from: string;
  until: string;
  reason: string;
}

export interface FreezeSettings {
  windows: FreezeWindow[];
  oneOff: OneOffFreeze[];
  /** PRs with one of these forge labels merge (and test) during a freeze, as urgent PRs do. */
  exemptLabels: string[];
  /** true: no test run starts during a freeze either (runs in flight finish). */
  stopTesting: boolean;
}

// ---------------------------------------------------------------- entries and runs

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/** What the forge says about a PR at one moment. */
export type RiskAwareBatching = 'off' | 'on';

export interface PrInfo {
  number: number;
  headSha: string;
  baseBranch: string;
  title: string;
  author: string;
  mergeability: Mergeability;
  /** Why it is `not_mergeable`, when the forge tells; absent otherwise. */
  unmergeable?: Unmergeable;
  /**
   * The target sha the PR's head is based on, when the forge knows it. With `checksPassed` it lets
   * a PR skip testing under `directMergeMode = always` (contract §6.9); absent = never direct.
   */
  baseSha?: string;
  /** Whether the PR's own required checks passed, when the forge knows it (contract §6.9). */
  checksPassed?: boolean;
  /** The PR's head branch, when the forge has one (getSubmittedPullRequest by `pr.branch`). */
  headBranch?: string;
  /**
   * True when merging the head into the base branch changes nothing: the head is already contained
   * in it, or its changes are there already (e.g. merged as a squash commit). Absent = unknown.
   */
  alreadyInBase?: boolean;
  /** The PR's labels, when the forge has them (freeze exemptions by label). */
  labels?: string[];
}

/** `ALL` marks a PR as impacting every target (a serialisation point in parallel mode). */
export type ImpactedTargets = readonly string[] | 'ALL';

export interface TimelineItem {
  at: number;
  from: PrState | null;
  to: PrState;
  reason: TransitionReason;
  runId?: string;
  detail?: string;
}

/** What the queue's runs told about one head of a PR: blame by evidence (blame.ts). */
export interface Evidence {
  /** The head the evidence is about. */
  headSha: string;
  /** A run that tested this head in its group passed. */
  passed: boolean;
  /** This head failed a run on its own. */
  failedAlone: boolean;
}

export interface Entry {
  /** Stable across trips of the same PR in the same queue (supplied by the caller on submit). */
  id: string;
  prNumber: number;
  trip: number;
  state: PrState;
  stateChangedAt: number;
  submittedAt: number;
  /** When the entry last entered PENDING from NOT_READY: the FIFO key within a priority. */
  admittedAt: number | null;
  headSha: string;
  baseBranch: string;
  /** The PR's head branch, when the forge reported one. */
  headBranch?: string;
  /** The PR's labels, when the forge reported them. */
  labels?: string[];
  title: string;
  author: string;
  mergeability: Mergeability;
  /** Why the forge calls it `not_mergeable`, when it told (PrInfo.unmergeable). */
  unmergeable?: Unmergeable;
  priorityValue: number;
  priorityName: string;
  /** The default priority name applied when the submission named none; null when one was given. */
  usedDefaultPriorityName: string | null;
  skipTheLine: boolean;
  noBatch: boolean;
  forceEnqueued: boolean;
  /** The PR's own commit message, given with its submission (`--message`); absent = none (commit-message.ts). */
  commitMessage?: string;
  /** Impacted targets uploaded for `headSha`; null when none were uploaded for it. */
  impactedTargets: ImpactedTargets | null;
  /** Why the entry has its impacted targets, in words, when greenline computed them from its paths. */
  impactedTargetsWhy?: string;
  /** The test run of the group this entry is (or was last) tested in. */
  runId: string | null;
  /** The run whose pass merged this entry (its own, or a successor's under optimistic merging). */
  verifiedByTestRun: string | null;
  /** The reason of the latest transition. */
  lastReason: TransitionReason;
  timeline: TimelineItem[];
  /** What the queue's runs told about a head of this PR (blame.ts); kept across trips. */
  evidence?: Evidence;
}

export type RunStatus = 'creating' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

export interface RunPr {
  number: number;
  headSha: string;
}

/**
 * What a test run tests against and what changed, once its test commit is built (forges that cannot
 * compare commits leave it out).
 */
export interface RunChanges {
  /**
   * The commit the run's own PRs were merged onto: the target branch head, or for a run behind
   * others (`dependentPrs`) the tested state ahead of it.
   */
  baseSha: string;
  /** The paths that differ between `baseSha` and the test commit, sorted. */
  files: string[];
  /** Each tested PR's own changed paths (its head against its merge base with the target head), in run order. */
  prs: { number: number; files: string[] }[];
}

export interface TestRun {
  id: string;
  queueType: QueueType;
  /** PRs under test in this run (the group), in queue order. */
  prNumbers: number[];
  /** PRs merged into the test branch as predicted base but not under test, in order. */
  dependentPrs: number[];
  /** Target branch sha the test commit is built on. */
  baseSha: string;
  /** Every PR head merged onto baseSha, in order: dependentPrs' heads, then the group's heads. */
  prs: RunPr[];
  testBranch: string;
  /** Sha of the test commit, once the forge built it. */
  testSha: string | null;
  status: RunStatus;
  createdAt: number;
  finishedAt: number | null;
  failureReason: FailureReason | null;
  failureDetail: string | null;
  /** When the current CI attempt started (test commit built, or run again); absent before CI starts. */
  ciStartedAt?: number;
  /** Times CI was run again after a failure (`ciRetries`); absent = 0. */
  failedRetries?: number;
  /** Times CI was run again after a cancellation; absent = 0. */
  cancelledRetries?: number;
  /** The statuses that decide the run, once its CI started (`ciStarted`); absent = not known yet. */
  requiredStatuses?: string[];
  /** The required statuses reported at least once (even pending) in the current attempt. */
  statusesSeen?: string[];
  /** The required statuses that failed in an earlier attempt of the run (quarantine.ts); absent = none. */
  failedStatuses?: string[];
  /** Its base and changed paths, once the test commit is built; absent when the forge cannot tell. */
  changes?: RunChanges;
}

// ---------------------------------------------------------------- the snapshot

export interface QueueSnapshot {
  repo: RepoRef;
  targetBranch: string;
  /** Prefix of test branch names: `<prefix>/pr-<N>[-<M>…]/<testRunId>` (contract §6.1). */
  testBranchPrefix: string;
  state: QueueState;
  config: QueueConfig;
  /** Last known sha of the target branch; null until the forge reported it. */
  targetSha: string | null;
  /**
   * Entries of the queue. May also hold terminal entries (the engine ignores them except to start a
   * new trip on resubmission); the caller may prune terminal entries between events.
   */
  entries: Entry[];
  /**
   * Test runs the engine still needs: every run whose status is `creating` or `in_progress`, and
   * every run referenced by a non-terminal entry's `runId`. The caller may prune the others.
   */
  runs: TestRun[];
  /** Engine bookkeeping that fits nowhere else (batch forming, bisection, mode switch, …). */
  internal: Record<string, unknown>;
}

// ---------------------------------------------------------------- events (inputs)

export type EngineEvent =
  | {
      kind: 'submit';
      at: number;
      entryId: string;
      pr: PrInfo;
      priority?: number | PriorityName | null;
      noBatch?: boolean;
      reason: SubmittedReason;
      forceEnqueued?: boolean;
      /** The PR's own commit message (its first line the title); kept by the entry. */
      commitMessage?: string;
    }
  /** `detail`: who cancelled, e.g. the API token's name. */
  | { kind: 'cancel'; at: number; prNumber: number; reason: CancellationReason; detail?: string }
  | {
      kind: 'restart';
      at: number;
      prNumber: number;
      reason: 'TESTS_RESTARTED_BY_API_REQUEST' | 'TESTS_RESTARTED_BY_USER';
    }
  /** The forge reports a PR's current head, base, title or mergeability. A new head sha → PR_PUSHED_TO. */
  | { kind: 'prObserved'; at: number; pr: PrInfo }
  | { kind: 'prClosed'; at: number; prNumber: number }
  | { kind: 'prConvertedToDraft'; at: number; prNumber: number }
  | { kind: 'prMergedOutside'; at: number; prNumber: number }
  | {
      kind: 'impactedTargets';
      at: number;
      prNumber: number;
      headSha: string;
      targets: ImpactedTargets;
      /** Why, in words, when computed from the PR's paths (`impactedTargetsFromPaths`); absent for an upload. */
      why?: string;
    }
  | { kind: 'testBranchCreated'; at: number; runId: string; sha: string; changes?: RunChanges }
  | { kind: 'testBranchFailed'; at: number; runId: string; reason: FailureReason; detail?: string }
  | {
      kind: 'ciResult';
      at: number;
      runId: string;
      /** `cancelled`: CI stopped the checks (not greenline); the run is tested again (ci-retries.ts). */
      outcome: 'success' | 'failure' | 'cancelled';
      reason?: FailureReason;
      detail?: string;
      /**
       * The required statuses that reported a failure in this attempt, when CI names them: those that
       * decided a failure, and on a success those quarantined that failed without gating.
       */
      failedStatuses?: string[];
    }
  /** CI started for the run's current attempt, deciding on `requiredStatuses`. */
  | { kind: 'ciStarted'; at: number; runId: string; requiredStatuses: string[] }
  /** Statuses of the run's current attempt reported for the first time (any state, pending included). */
  | { kind: 'ciStatusSeen'; at: number; runId: string; contexts: string[] }
  /**
   * A merge effect succeeded; the target branch now points at newTargetSha. `detail`: how the forge
   * had to merge when it cost more than the method promises (kept as the PRs' MERGED detail).
   */
  | { kind: 'merged'; at: number; runId: string; prNumbers: number[]; newTargetSha: string; detail?: string }
  /** A merge effect failed. `TARGET_MOVED` means the compare-and-swap lost: nothing was merged. */
  | {
      kind: 'mergeFailed';
      at: number;
      runId: string;
      prNumbers: number[];
      reason: 'MERGE_REFUSED' | 'PR_UPDATED_AT_MERGE_TIME' | 'TARGET_MOVED';
      detail?: string;
      /** PRs of the group that were merged before the failure (squash/rebase merge one PR at a time). */
      mergedPrNumbers?: number[];
      newTargetSha?: string;
    }
  /** The target branch head was observed at `sha` (first sighting, or moved outside the queue). */
  | { kind: 'targetMoved'; at: number; sha: string }
  /** Time passed: timeouts, batching wait, PFD windows. */
  | { kind: 'tick'; at: number }
  /**
   * `refuseWhileSwitching`: while the queue switches modes, the write is refused (SWITCHING_MODES)
   * instead of applied; Trunk's v2 asks this, v1 applies settings and retargets the switch.
   */
  | { kind: 'updateConfig'; at: number; patch: Partial<QueueConfig>; refuseWhileSwitching?: boolean }
  | { kind: 'setState'; at: number; state: SettableQueueState };

// ---------------------------------------------------------------- effects (outputs)

/**
 * What a webhook subscriber is told; the webhook layer adds repo, author, URLs and formatting.
 * `queue.*` events are about the queue itself (its state changed): prNumbers is empty.
 */
export interface QueueEventPayload {
  type:
    | 'pull_request.submitted'
    | 'pull_request.queued'
    | 'pull_request.testing'
    | 'pull_request.pending_failure'
    | 'pull_request.failed'
    | 'pull_request.canceled'
    | 'pull_request.merged'
    | 'pull_request_batch.submitted'
    | 'pull_request_batch.queued'
    | 'pull_request_batch.testing'
    | 'pull_request_batch.pending_failure'
    | 'pull_request_batch.failed'
    | 'pull_request_batch.canceled'
    | 'pull_request_batch.merged'
    /** greenline's queue-level events (never sent to Trunk-style subscribers unless named). */
    | 'queue.paused'
    | 'queue.resumed'
    | 'queue.frozen'
    | 'queue.unfrozen'
    /** A required status was quarantined (no longer gates) or its quarantine was lifted (quarantine.ts). */
    | 'queue.status_quarantined'
    | 'queue.status_quarantine_lifted'
    /** CI of a run is started again on the same test commit (`ciRetries`, or after a cancellation). */
    | 'test_run.retry_requested'
    /** A run's test commit is built and its CI starts; carries what it tests against and what changed. */
    | 'test_run.started';
  at: number;
  /** The PRs the event is about (one for pull_request.*). */
  prNumbers: number[];
  /** Every PR tested together with them (batch events); equals prNumbers otherwise. */
  prNumbersInBatch: number[];
  runId: string | null;
  testBranch: string | null;
  testBranchSha: string | null;
  reason: TransitionReason | null;
  batched: boolean;
  isBisection: boolean;
  /** queue.frozen / queue.unfrozen: why the queue is (was) frozen and until when (null: no end known). */
  freeze?: { reason: string; until: number | null };
  /** queue.status_quarantined / queue.status_quarantine_lifted: which status, whether automatic, and why in words. */
  quarantine?: { status: string; automatic: boolean; reason: string };
  /** test_run.started: the run's base and changed paths, when the forge could tell. */
  changes?: RunChanges;
}

/**
 * Effects are data. Each has a stable `key`: executing an effect twice with the same key must be
 * harmless (creating a branch that already exists at the same sha is success).
 */
export type Effect =
  | { kind: 'createTestBranch'; key: string; runId: string; branch: string; baseSha: string; prs: RunPr[] }
  | {
      kind: 'startCi';
      key: string;
      runId: string;
      branch: string;
      sha: string;
      prNumbers: number[];
      requiredStatuses: string[] | null;
      timeoutMinutes: number;
    }
  /**
   * Run the CI of `runId` again on the same test commit: its statuses so far are forgotten
   * (`attempt` counts the retries, 1 for the first).
   */
  | {
      kind: 'retryCi';
      key: string;
      runId: string;
      branch: string;
      sha: string;
      prNumbers: number[];
      requiredStatuses: string[] | null;
      timeoutMinutes: number;
      attempt: number;
    }
  | { kind: 'cancelCi'; key: string; runId: string }
  | { kind: 'deleteTestBranch'; key: string; runId: string; branch: string }
  /**
   * Advance the target branch from exactly `expectedTargetSha` to the tested state of `runId`
   * (`testSha`), merging `prs` (the PRs that become MERGED) with `method`. Compare-and-swap:
   * if the target is not at expectedTargetSha, nothing is merged and `mergeFailed` TARGET_MOVED follows.
   */
  | {
      kind: 'merge';
      key: string;
      runId: string;
      expectedTargetSha: string;
      testSha: string;
      prs: RunPr[];
      method: MergeMethod;
    }
  | { kind: 'emitEvent'; key: string; event: QueueEventPayload }
  /** Deliver a `tick` at (or soon after) `at`. */
  | { kind: 'scheduleWakeup'; key: string; at: number };

// ---------------------------------------------------------------- decide

/** Injected sources the engine may not own: ids (test run UUIDs). */
export interface DecideContext {
  newId(): string;
}

/** An event the engine refuses; the snapshot is unchanged. Never thrown. */
export interface Rejection {
  code:
    | 'PR_NOT_IN_QUEUE' // cancel/restart/… for a PR with no non-terminal entry
    | 'RUN_NOT_FOUND' // an event names a run the engine does not know
    | 'STALE_RUN_EVENT' // an event for a run that already finished or was superseded
    | 'RESTART_NOT_ALLOWED' // restart in a state where it is not meaningful
    | 'PR_ALREADY_MERGED' // submit of a PR whose changes are already in its base branch
    | 'SWITCHING_MODES' // setState (or updateConfig refusing to) while the queue switches modes
    | 'PR_BEING_MERGED' // cancel of a PR whose merge is in flight
    | 'INVALID_CONFIG' // updateConfig with settings that fail validation (config-validation.ts)
    | 'INVALID_EVENT'; // anything else that cannot apply (with a message)
  message: string;
}

export type Decision = { ok: true; snapshot: QueueSnapshot; effects: Effect[] } | { ok: false; rejection: Rejection };

/** What `getSubmittedPullRequest` reports as `readiness` (contract §2.4). */
export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  mergeability: Mergeability;
}
