/**
 * The application layer's interface (the service port), as the HTTP routes and the CLI see it: one
 * interface per area (queues, pull requests, test runs, read models, auth, webhooks), and
 * MergeQueueService, all of them, implemented by src/app/service/merge-queue-service.ts. A caller
 * depends on the areas it uses. Implementations drive queues only through the engine (src/engine) and
 * persist through the store (src/store). Every method throws `ServiceError` (src/lib/errors.ts) for anything a
 * caller did wrong.
 */
import type {
  Entry,
  ImpactedTargets,
  PriorityName,
  QueueConfig,
  QueueSnapshot,
  RepoRef,
  SettableQueueState,
  SubmittedReason,
  TestRun,
} from '../engine/types.js';
import type { PrOutlook } from '../engine/eta.js';
import type { CiStatus } from '../forge/port.js';
import type { WebhookAdmin } from '../webhooks/admin.js';
import type { NotifyAdmin } from '../notify/admin.js';
import type {
  ApiDirectory,
  PullRequestHandle,
  QueueHandle,
  RepositoryView,
  TestingResult,
  WrittenEntry,
} from './read-models/api-directory.js';
import type { ConcludedPage, ConcludedQuery } from './read-models/concluded-prs.js';
import type { QueueActivity, QueueHistory, QueueSummary } from './read-models/queue-activity.js';
import type { PrView } from './read-models/pr-view.js';
import type { TestRunView } from './read-models/test-run-details.js';
import type { AuditPage, AuditQuery } from '../audit/audit-read.js';
import type { AuthContext, QueueKey, QueueTarget } from './request-scope.js';

export type { AuthContext, PrView, QueueKey, QueueTarget, TestRunView, WrittenEntry };

export interface QueueView {
  snapshot: QueueSnapshot;
  /** When the view was read: what the queue's freezes are judged at. */
  at: number;
  /** Non-terminal entries except NOT_READY, in queue order (what getQueue lists). */
  enqueued: Entry[];
  /** Position, what it waits on and estimated merge time of each non-terminal entry (pr-outlook.ts). */
  outlook: ReadonlyMap<number, PrOutlook>;
  /** updateQueue only: what the write means, in words, beyond the settings (a change of impactedTargetsFromPaths). */
  notes?: readonly string[];
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
  /**
   * While the queue switches modes, refuse the settings (and mode) with SWITCHING_MODES instead of
   * applying them (Trunk's v2; v1 applies them and a mode retargets the switch).
   */
  refuseWhileSwitching?: boolean;
}

/**
 * Who sent a config write (createQueue, updateQueue), from its User-Agent and X-Source headers
 * (contract §2.10): 'terraform' for Terraform and OpenTofu, 'other' for anything else.
 */
export type ConfigSource = 'terraform' | 'other';

/** Resolving an API token to its caller. */
export interface AuthService {
  authenticate(token: string): Promise<AuthContext | null>;
}

/** Queues: their config and state. */
export interface QueueService {
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
}

/** Pull requests in a queue: submitting, cancelling, restarting, reading them and their impacted targets. */
export interface PullRequestService {
  /** Answers the PR's entry as the submission left it; undefined when the queue no longer holds it (merged at once). */
  submitPullRequest(
    ctx: AuthContext,
    key: QueueTarget,
    req: {
      prNumber: number;
      priority?: number | PriorityName | null;
      noBatch?: boolean;
      /** Sent to the queue past unmet readiness (v2 `direct`). */
      forceEnqueued?: boolean;
      /** Who asked: API_REQUESTED unless given (a PR comment or label is USER_REQUESTED). */
      reason?: SubmittedReason;
      /** The PR's own commit message: its first line the title, the rest (when given) the body. */
      commitMessage?: string;
    },
  ): Promise<WrittenEntry | undefined>;
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
  ): Promise<{ items: Entry[]; nextCursor?: string; outlook: ReadonlyMap<number, PrOutlook> }>;
  /**
   * setImpactedTargets for a fork PR's CI, which has no token: the repository's forge must confirm
   * that workflow run `runId` is running for a fork PR at `sha` (contract §2.6, §9).
   */
  setImpactedTargetsFromFork(
    runId: string,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void>;
  /** Accepted for any PR of a connected repo, submitted or not; stored per (PR, head sha), last wins. */
  setImpactedTargets(
    ctx: AuthContext,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void>;
}

/** Test runs: their details, statuses reported by external CI, the built-in runner's log. */
export interface TestRunService {
  getTestingDetails(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<TestRunView>;

  /**
   * Extension: external CI reports a status for a test run (by run id, or by test commit sha) of a
   * repo of the caller's org, like a forge's commit-status API.
   */
  reportStatus(
    ctx: AuthContext,
    req: { repo: RepoRef; testRunId?: string; sha?: string; status: CiStatus },
  ): Promise<void>;
  /**
   * Extension: a test run of a repo of the caller's org (by run id, or by test commit sha), for what
   * it tests against and what changed (`changes`, absent when the forge cannot compare commits).
   */
  getTestRunChanges(ctx: AuthContext, req: { repo: RepoRef; testRunId?: string; sha?: string }): Promise<TestRun>;
  /** Extension: the built-in CI runner's log of a test run; null when the run has no log. */
  getTestRunLog(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<string | null>;
}

/** Read models: metrics and the dashboard's views of the org's queues. */
export interface ReadModelService {
  /** Prometheus text for the org, or for one repo of it. */
  metrics(ctx: AuthContext, filter: { repo?: RepoRef }): Promise<string>;

  /** Extension (dashboard): the org's queues with state, mode, depth and last hour's conclusions. */
  listQueues(ctx: AuthContext): Promise<QueueSummary[]>;
  /** Extension (dashboard): PRs in queue order, test runs in flight with what they include, recent conclusions. */
  getQueueActivity(ctx: AuthContext, key: QueueKey): Promise<QueueActivity>;
  /** Extension (dashboard): the queue's last `hours` clock hours. */
  getQueueHistory(ctx: AuthContext, key: QueueKey, hours: number): Promise<QueueHistory>;
  /** Extension (dashboard): the queue's concluded PRs matching the filters, newest first, a page at a time. */
  listConcludedPullRequests(ctx: AuthContext, key: QueueKey, query: ConcludedQuery): Promise<ConcludedPage>;
  /**
   * Extension (dashboard): calls `onChange` after every committed change of the queue until the
   * returned function is called.
   */
  watchQueue(ctx: AuthContext, key: QueueKey, onChange: () => void): Promise<() => void>;
}

/** Webhook subscriptions and their deliveries. */
export interface WebhookService {
  /** Extension: webhook subscriptions and their deliveries (docs/webhooks.md); callers pass their org. */
  readonly webhooks: WebhookAdmin;
}

/** Chat notification channels. */
export interface NotificationService {
  /** Extension: chat notification channels (docs/notifications.md); callers pass their org. */
  readonly notifications: NotifyAdmin;
}

/** What the v2 API addresses by id: queues, repositories, pull requests and test runs of the caller's org. */
export interface DirectoryService {
  readonly directory: CallerDirectory;
}

/**
 * The v2 API's directory (read-models/api-directory.ts) as the caller may see it: what belongs to
 * another organization is answered as unknown (undefined), exactly like something that does not
 * exist; a repository the caller's token is not limited to is refused (INSUFFICIENT_PERMISSIONS).
 */
export interface CallerDirectory
  extends Pick<
    ApiDirectory,
    'queueOf' | 'pullRequestIds' | 'pullRequestOf' | 'forgePullRequest' | 'entryIn' | 'runs' | 'now'
  > {
  /** The caller's queues (of one repository, one branch), oldest first. */
  queues(ctx: AuthContext, filter?: { repoId?: string; targetBranch?: string }): Promise<QueueHandle[]>;
  queue(ctx: AuthContext, shortId: string): Promise<QueueHandle | undefined>;
  repo(ctx: AuthContext, id: string): Promise<RepositoryView | undefined>;
  repos(ctx: AuthContext): Promise<RepositoryView[]>;
  /** A pull request by its v2 id, with its most recent entry as committed now. */
  pullRequest(ctx: AuthContext, id: string): Promise<PullRequestHandle | undefined>;
  /** A test run and its queue. */
  run(ctx: AuthContext, runId: string): Promise<{ handle: QueueHandle; run: TestRun } | undefined>;
  /** Testing results of a queue's runs that finished within [since, until], newest first. */
  testingResults(ctx: AuthContext, key: QueueKey, since: number, until: number): Promise<TestingResult[]>;
}

/** The audit log: who changed what in the caller's organization (docs/audit-log.md). */
export interface AuditService {
  /** Extension: the organization's audit log entries matching `query`, newest first, a page at a time. */
  listAuditEvents(ctx: AuthContext, query: AuditQuery): Promise<AuditPage>;
}

/** A ref that moved on a repository's remote, as a `post-receive` hook reads it on stdin. */
export interface MovedRef {
  ref: string;
  /** All zeros: the ref was created. */
  oldSha: string;
  /** All zeros: the ref was deleted. */
  newSha: string;
}

/** Push notifications: a forge tells that refs moved. */
export interface RefsService {
  /**
   * Extension: refs of a repository of the caller's org moved (the repository named, or found by its
   * remote `url`); the queues they concern (their target branch, PR heads) are read now. Answers how
   * many queues were read.
   */
  notifyRefsMoved(
    ctx: AuthContext,
    req: { repo?: RepoRef; url?: string; refs: readonly MovedRef[] },
  ): Promise<{ queuesRead: number }>;
}

/** A try build of a PR (app/try-builds.ts): built with its target and tested by the queue's CI, not queued. */
export interface TryBuildView {
  id: string;
  prNumber: number;
  /** The PR head tried. */
  headSha: string;
  /** Built on top of the PRs queued ahead, rather than on the target head alone. */
  onQueue: boolean;
  state: 'queued' | 'building' | 'testing' | 'passed' | 'failed' | 'cancelled';
  /** Where it stands or how it ended, in words. */
  detail: string;
  /** The target head it was built on, once building. */
  baseSha?: string;
  /** The PRs merged onto the base, in order, the tried PR last. */
  prNumbers: number[];
  /** The commit tested, once built. */
  testSha?: string;
  /** Who asked for it: the API token's name or the forge user who commented. */
  requestedBy: string;
  createdAt: number;
  updatedAt: number;
}

/** Try builds: a PR tested by the queue's CI without being queued. */
export interface TryService {
  /** Starts a try of the PR (one at a time per PR); answers it as it starts. */
  tryPullRequest(ctx: AuthContext, key: QueueKey, req: { prNumber: number; onQueue?: boolean }): Promise<TryBuildView>;
  /** The PR's latest try in the queue; null when it never had one. */
  getPullRequestTry(ctx: AuthContext, key: QueueKey, prNumber: number): Promise<TryBuildView | null>;
}

/** The whole service: what the HTTP API serves. */
export type MergeQueueService = AuthService &
  RefsService &
  TryService &
  QueueService &
  PullRequestService &
  TestRunService &
  ReadModelService &
  WebhookService &
  NotificationService &
  DirectoryService &
  AuditService;
