/**
 * The application layer's interface, as the HTTP routes and the CLI see it. Implementations live in
 * src/app/*-service.ts; they drive queues only through the engine (src/engine) and persist through
 * the store (src/store). Every method throws `HttpError` (src/errors.ts) for anything a caller did wrong.
 */
import type {
  Entry,
  ImpactedTargets,
  PriorityName,
  QueueConfig,
  QueueSnapshot,
  Readiness,
  RepoRef,
  SettableQueueState,
  SubmittedReason,
  TestRun,
} from '../engine/types.js';
import type { CiStatus } from '../ports.js';
import type { WebhookAdmin } from '../webhooks/admin.js';
import type { ApiDirectory } from './api-directory.js';
import type { QueueActivity, QueueHistory, QueueSummary } from './dashboard.js';
import type { PrReason } from './pr-reason.js';

/** Who is calling: resolved from the x-api-token header. */
export interface AuthContext {
  orgId: string;
  orgName: string;
  tokenId: string;
  /** The token's name, which says who cancelled a PR; absent for calls not made with a token. */
  tokenName?: string;
}

export interface QueueKey {
  repo: RepoRef;
  targetBranch: string;
}

export interface QueueView {
  snapshot: QueueSnapshot;
  /** Non-terminal entries except NOT_READY, in queue order (what getQueue lists). */
  enqueued: Entry[];
}

export interface PrView {
  entry: Entry;
  readiness: Readiness;
  /** True while the entry is non-terminal. */
  isCurrentlySubmittedToQueue: boolean;
  /** Why it is in its state, in words (pr-reason.ts). */
  reason: PrReason;
}

export interface TestRunView {
  run: TestRun;
  requiredStatuses: string[];
  requiredStatusesSource: 'trunk_config' | 'repo_provider_branch_protection' | 'merge_instance';
  statuses: CiStatus[];
  testedPullRequests: { prNumber: number; title: string }[];
  impactedTargets: string[] | null;
  impactedTargetsForTestedPrs: string[] | null;
}

export interface ListPullRequestsQuery {
  state?: Entry['state'];
  since?: number;
  /** Only PRs that concluded at or before this time (ms). */
  until?: number;
  cursor?: string;
  take: number;
}

export interface QueueUpdate extends Partial<QueueConfig> {
  state?: SettableQueueState;
  /** true removes the requiredStatuses override (requiredStatuses [] is an empty override: no check required). */
  deleteRequiredStatuses?: boolean;
}

/**
 * Who sent a config write (createQueue, updateQueue), from its User-Agent and X-Source headers
 * (contract §2.10): 'terraform' for Terraform and OpenTofu, 'other' for anything else.
 */
export type ConfigSource = 'terraform' | 'other';

/** Whether Terraform manages a queue's config, and since when it was changed outside Terraform. */
export interface QueueManagement {
  /** 'terraform' once Terraform (or OpenTofu) wrote the config; null: no Terraform write yet. */
  managedBy: 'terraform' | null;
  /** When a write from outside Terraform first followed the last Terraform write; null: none since. */
  driftSince: number | null;
}

export interface MergeQueueService {
  authenticate(token: string): Promise<AuthContext | null>;

  /** `source` 'terraform' marks the queue managed by Terraform (default 'other'). */
  createQueue(
    ctx: AuthContext,
    key: QueueKey,
    config: Pick<Partial<QueueConfig>, 'mode' | 'concurrency'>,
    source?: ConfigSource,
  ): Promise<void>;
  getQueue(ctx: AuthContext, key: QueueKey): Promise<QueueView>;
  /**
   * `source` 'terraform' marks the queue managed and clears its drift; an 'other' write (the default)
   * of any setting or state starts the drift of a managed queue. Both only when the write is applied.
   */
  updateQueue(ctx: AuthContext, key: QueueKey, update: QueueUpdate, source?: ConfigSource): Promise<QueueView>;
  deleteQueue(ctx: AuthContext, key: QueueKey): Promise<void>;

  submitPullRequest(
    ctx: AuthContext,
    key: QueueKey,
    req: {
      prNumber: number;
      priority?: number | PriorityName | null;
      noBatch?: boolean;
      /** Sent to the queue past unmet readiness (v2 `direct`). */
      forceEnqueued?: boolean;
      /** Who asked: API_REQUESTED unless given (a PR comment or label is USER_REQUESTED). */
      reason?: SubmittedReason;
    },
  ): Promise<void>;
  cancelPullRequest(
    ctx: AuthContext,
    key: QueueKey,
    prNumber: number,
    reason?: 'API_REQUESTED' | 'USER_REQUESTED',
  ): Promise<void>;
  restartTestsOnPullRequest(ctx: AuthContext, key: QueueKey, prNumber: number): Promise<void>;
  /** By number, or by head branch name (open PR first, else the most recently closed). */
  getSubmittedPullRequest(
    ctx: AuthContext,
    key: QueueKey,
    pr: { number: number } | { branch: string },
  ): Promise<PrView>;
  listPullRequests(
    ctx: AuthContext,
    key: QueueKey,
    query: ListPullRequestsQuery,
  ): Promise<{ items: Entry[]; nextCursor?: string }>;
  /** Accepted for any PR of a connected repo, submitted or not; stored per (PR, head sha), last wins. */
  /**
   * setImpactedTargets for a fork PR's CI, which has no token: the repository's forge must confirm
   * that workflow run `runId` is running for a fork PR at `sha` (contract §2.6, §9).
   */
  setImpactedTargetsFromFork(
    runId: string,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void>;
  setImpactedTargets(
    ctx: AuthContext,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void>;
  getTestingDetails(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<TestRunView>;

  /**
   * Extension: external CI reports a status for a test run (by run id, or by test commit sha) of a
   * repo of the caller's org, like a forge's commit-status API.
   */
  reportStatus(
    ctx: AuthContext,
    req: { repo: RepoRef; testRunId?: string; sha?: string; status: CiStatus },
  ): Promise<void>;
  /** Extension: the built-in CI runner's log of a test run; null when the run has no log. */
  getTestRunLog(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<string | null>;

  /** Prometheus text for the org, or for one repo of it. */
  metrics(ctx: AuthContext, filter: { repo?: RepoRef }): Promise<string>;

  /** Extension: webhook subscriptions and their deliveries (docs/webhooks.md); callers pass their org. */
  readonly webhooks: WebhookAdmin;
  /** The v2 API's ids: queues, repositories, pull requests and test runs of the caller's org by id. */
  readonly directory: ApiDirectory;
  /** Extension (dashboard): the org's queues with state, mode, depth and last hour's conclusions. */
  listQueues(ctx: AuthContext): Promise<QueueSummary[]>;
  /** Extension (dashboard): PRs in queue order, test runs in flight with what they include, recent conclusions. */
  getQueueActivity(ctx: AuthContext, key: QueueKey): Promise<QueueActivity>;
  /** Extension (dashboard): the queue's last `hours` clock hours. */
  getQueueHistory(ctx: AuthContext, key: QueueKey, hours: number): Promise<QueueHistory>;
  /**
   * Extension (dashboard): calls `onChange` after every committed change of the queue until the
   * returned function is called.
   */
  watchQueue(ctx: AuthContext, key: QueueKey, onChange: () => void): Promise<() => void>;
}
