/**
 * Domain → v2 wire JSON (Trunk's v2 names): lowerCamelCase enums, queue modes `queue`/`graph`, the
 * PR record split into the pull request and its `queueEntry`, config names of v2. Times are ISO-8601.
 */
import type { EntryView, QueueHandle, RepositoryView } from '../../app/read-models/api-directory.js';
import type { TestRunView } from '../../app/service-port.js';
import type {
  Entry,
  PrInfo,
  QueueConfig,
  QueueMode,
  QueueSnapshot,
  TestRun,
  TimelineItem,
} from '../../engine/types.js';
import { trunkReason } from '../../engine/trunk-names.js';
import { repoWebUrl } from '../../forge/links.js';
import { commitWebUrl, prUrlField } from '../../forges.js';
import { iso } from '../../lib/time.js';

/** `NOT_READY` → `notReady`, `merge_commit` → `mergeCommit`. */
export const camel = (value: string): string =>
  value.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** `notReady` → `NOT_READY`. */
export const upperSnake = (value: string): string => value.replace(/([A-Z])/g, '_$1').toUpperCase();

/** `mergeCommit` → `merge_commit`. */
export const lowerSnake = (value: string): string => value.replace(/([A-Z])/g, '_$1').toLowerCase();

export const modeOut = (mode: QueueMode): 'queue' | 'graph' => (mode === 'parallel' ? 'graph' : 'queue');
export const modeIn = (mode: 'queue' | 'graph'): QueueMode => (mode === 'graph' ? 'parallel' : 'single');

export function configOut(c: QueueConfig) {
  return {
    concurrency: c.concurrency,
    bisectionConcurrency: c.bisectionConcurrency,
    pendingFailureDepth: c.pendingFailureDepth,
    canOptimisticallyMerge: c.canOptimisticallyMerge,
    allowBatching: c.batch,
    batchingMaxWaitTimeMinutes: c.batchingMaxWaitTimeMinutes,
    batchingMinSize: c.batchingMinSize,
    testingTimeoutMinutes: c.testingTimeoutMinutes,
    notReadyTimeoutMinutes: c.notReadyTimeoutHours * 60,
    createsPrsForTestingBranches: c.createPrsForTestingBranches,
    areCommentsEnabled: c.commentsEnabled,
    areCommandsEnabled: c.commandsEnabled,
    isStatusCheckEnabled: c.statusCheckEnabled,
    isExtensionEnabled: c.extensionEnabled,
    areLabelCommandsEnabled: c.labelCommandsEnabled,
    areStateLabelsEnabled: c.stateLabelsEnabled,
    requiredStatuses: c.requiredStatuses ?? [],
    allowedBotSubmitters: [],
    batchingRules: [],
    directMergeMode: c.directMergeMode,
    optimizationMode: camel(c.optimizationMode),
    mergeMethod: camel(c.mergeMethod),
    testBranchConstructionMode: camel(c.testBranchConstructionMode),
    enqueueingLabel: c.enqueueingLabel,
    // Extension: present only while set, as in v1.
    ...(c.impactedTargetsFromPaths ? { impactedTargetsFromPaths: c.impactedTargetsFromPaths } : {}),
  };
}

/** Who manages the queue's config: Terraform marks it (contract §2.10), a later other write drifts it. */
export function managedStateOf(handle: QueueHandle): 'manual' | 'terraform' | 'terraformWithDrift' {
  if (handle.queue.managedBy !== 'terraform') return 'manual';
  return handle.queue.driftSince === null ? 'terraform' : 'terraformWithDrift';
}

export const pullRequestsUrl = (shortId: string) => `/v2/merge-queues/${shortId}/pull-requests`;

export function mergeQueueOut(handle: QueueHandle, snapshot: QueueSnapshot) {
  const { queue, repo } = handle;
  return {
    id: handle.shortId,
    repositoryId: repo.id,
    targetBranch: queue.targetBranch,
    state: camel(snapshot.state),
    mode: modeOut(snapshot.config.mode),
    managedState: managedStateOf(handle),
    createdAt: iso(queue.createdAt),
    updatedAt: iso(queue.updatedAt),
    repositoryUrl: repoWebUrl(repo),
    pullRequestsUrl: pullRequestsUrl(handle.shortId),
    config: configOut(snapshot.config),
  };
}

export const stateChangeOut = (shortId: string, snapshot: QueueSnapshot) => ({
  id: shortId,
  state: camel(snapshot.state),
  mode: modeOut(snapshot.config.mode),
  pullRequestsUrl: pullRequestsUrl(shortId),
});

export function queueEntryOut(view: EntryView['view'], queueShortId: string, list: boolean) {
  const { entry, readiness } = view;
  return {
    id: entry.id,
    mergeQueueId: queueShortId,
    state: camel(entry.state),
    stateChangedAt: iso(entry.stateChangedAt),
    priorityValue: entry.priorityValue,
    priorityName: entry.priorityName,
    ...(entry.usedDefaultPriorityName ? { usedDefaultPriorityName: entry.usedDefaultPriorityName } : {}),
    skipsTheLine: entry.priorityValue === 0,
    allowBatching: !entry.noBatch,
    direct: entry.forceEnqueued,
    ...(entry.verifiedByTestRun ? { verifiedByVerificationRunId: entry.verifiedByTestRun } : {}),
    readiness: {
      requiresImpactedTargets: readiness.requiresImpactedTargets,
      // Left out on list reads, as Trunk does.
      ...(list ? {} : { hasImpactedTargets: readiness.hasImpactedTargets }),
      doesBaseBranchMatch: readiness.doesBaseBranchMatch,
      mergeability: camel(readiness.mergeability),
    },
    createdAt: iso(entry.submittedAt),
    updatedAt: iso(entry.stateChangedAt),
  };
}

export interface PullRequestFacts {
  id: string;
  repo: RepositoryView;
  /** When the pull request's id was given out. */
  createdAt: number;
  /** Its entry (the most recent one), with the queue's short id. */
  entry?: EntryView;
  /** The forge's view, for a pull request never submitted. */
  forge?: PrInfo;
}

export function pullRequestOut(f: PullRequestFacts, list = false) {
  const e: Entry | undefined = f.entry?.view.entry;
  const info = e ?? f.forge!;
  const number = e ? e.prNumber : f.forge!.number;
  const state = e?.state === 'MERGED' ? 'merged' : e?.lastReason === 'PR_CLOSED' ? 'closed' : 'open';
  return {
    id: f.id,
    repositoryId: f.repo.id,
    number,
    title: info.title,
    branch: info.headBranch ?? '',
    sha: info.headSha,
    baseBranch: info.baseBranch,
    author: info.author,
    ...prUrlField(f.repo, number),
    state,
    isCurrentlySubmittedToQueue: f.entry?.view.isCurrentlySubmittedToQueue ?? false,
    ...(f.entry ? { queueEntry: queueEntryOut(f.entry.view, f.entry.queueShortId, list) } : {}),
    createdAt: iso(f.createdAt),
  };
}

const RUN_STATUS: Record<TestRun['status'], string> = {
  creating: 'inProgress',
  in_progress: 'inProgress',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};

export const runStatusOut = (status: TestRun['status']) => RUN_STATUS[status];

/** The run statuses a v2 `status` filter names. */
export const runStatusesIn = (status: string): TestRun['status'][] =>
  (Object.keys(RUN_STATUS) as TestRun['status'][]).filter((s) => RUN_STATUS[s] === status);

const CHECK_CONCLUSION: Record<string, string> = {
  success: 'success',
  failure: 'failure',
  error: 'failure',
};

/** A test run as a v2 verification run; `prIds` names the ids of the PRs it tested. */
export function verificationRunOut(
  run: TestRun,
  repo: RepositoryView,
  prIds: Map<number, string>,
  titles: Map<number, string>,
  details?: TestRunView,
) {
  const shas = new Map(run.prs.map((p) => [p.number, p.headSha]));
  const prRef = (number: number) => ({
    id: prIds.get(number)!,
    number,
    sha: shas.get(number) ?? '',
    title: titles.get(number) ?? '',
    ...prUrlField(repo, number),
  });
  const targets = details?.impactedTargets;
  const testBranchCommitUrl = run.testSha && commitWebUrl(repo, run.testSha);
  return {
    id: run.id,
    isBisection: run.queueType === 'bisection',
    testBranch: run.testBranch,
    testBranchSha: run.testSha ?? '',
    ...(testBranchCommitUrl ? { testBranchCommitUrl } : {}),
    createdAt: iso(run.createdAt),
    updatedAt: iso(run.finishedAt ?? run.createdAt),
    status: runStatusOut(run.status),
    ...(details ? { requiredStatusesSource: camel(details.requiredStatusesSource) } : {}),
    requiredStatuses: details?.requiredStatuses ?? [],
    checks: (details?.statuses ?? []).map((s) => ({
      id: s.context,
      name: s.context,
      kind: 'statusCheck',
      status: s.state === 'pending' ? 'inProgress' : 'completed',
      conclusion: CHECK_CONCLUSION[s.state] ?? 'neutral',
      providerConclusion: s.state.toUpperCase(),
      url: s.url ?? null,
      provider: 'github',
    })),
    testedPullRequests: run.prNumbers.map((number) => {
      const changedFiles = run.changes?.prs.find((p) => p.number === number)?.files;
      return { ...prRef(number), ...(changedFiles ? { changedFiles } : {}) };
    }),
    dependentPullRequests: run.dependentPrs.map(prRef),
    ...(run.changes ? { baseSha: run.changes.baseSha, changedFiles: run.changes.files } : {}),
    ...(targets
      ? {
          impactedTargets: {
            all: {
              impactsAllTargets: targets.includes('ALL'),
              impactedTargets: targets.includes('ALL') ? [] : [...new Set(targets)].sort(),
            },
          },
        }
      : {}),
  };
}

/** An entry's timeline as v2 state transitions, oldest first. */
export function transitionsOut(pullRequestId: string, timeline: TimelineItem[]) {
  return timeline.map((t) => ({
    pullRequestId,
    state: camel(t.to),
    changedAt: iso(t.at),
    reason: t.to === 'TESTING' || t.to === 'PENDING_FAILURE' ? null : trunkReason(t.reason),
    ...(t.runId ? { verificationRunId: t.runId } : {}),
  }));
}

export function repositoryOut(repo: RepositoryView) {
  return {
    id: repo.id,
    provider: repo.forge === 'github' ? 'github' : 'unknown',
    path: `${repo.owner}/${repo.name}`,
    host: repo.host === 'github.com' ? null : repo.host,
    url: repoWebUrl(repo),
    defaultBranch: null,
    isPrivate: null,
    createdAt: iso(repo.createdAt),
    updatedAt: iso(repo.createdAt),
  };
}
