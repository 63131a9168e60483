/**
 * Domain → wire JSON. Field names are Trunk's v1 names (contract §2). PR states and queue states are
 * UPPERCASE (the spec's spelling) or, with `enumCase: 'lower'` (the server's setting, or a request from
 * Terraform: config-source.ts), Trunk's current lowercase; settings
 * enums (mode, mergeMethod, …) are lowercase in both, as in Trunk's OpenAPI document (contract §3 #1).
 * Times are ISO-8601 strings.
 */
import type { Static } from '@sinclair/typebox';
import { reasonMessage, type PrReason } from '../../engine/pr-reason.js';
import { trunkReason } from '../../engine/trunk-names.js';
import type { PrView, QueueView, TestRunView } from '../../app/service-port.js';
import {
  adaptiveStatus,
  statusFlakiness,
  DEFAULT_AUTO_QUARANTINE_THRESHOLD,
  DEFAULT_AUTO_QUARANTINE_MIN_RESULTS,
  allowedActions,
  DEFAULT_ADAPTIVE_MIN_CONCURRENCY,
  freezeStatus,
  type PrOutlook,
  testingTimeoutInForceOf,
} from '../../engine/index.js';
import type { Entry, PrState, QueueSnapshot, QueueState, Readiness, TestRun } from '../../engine/types.js';
import { iso } from '../../lib/time.js';
import type { RepoSite } from '../../forge/links.js';
import { commitWebUrl, prWebUrl, prWebUrlOrGitHubForm } from '../../forges.js';
import type { PrItem, SubmittedPr } from './schemas/pull-request.js';
import type { QueueResponse, QueueSettings } from './schemas/queue.js';
import type { TestingDetails } from './schemas/testing-details.js';
import type { TestRunChanges } from './schemas/extensions.js';

export type EnumCase = 'upper' | 'lower';

export const stateOut = (state: PrState | QueueState, enumCase: EnumCase): string =>
  enumCase === 'upper' ? state : state.toLowerCase();

/** A PR item; `outlook` gives the extension fields position, waitingOn and estimatedMergeAt (null without). */
export function prItem(entry: Entry, enumCase: EnumCase, outlook: PrOutlook | null = null): Static<typeof PrItem> {
  return {
    id: entry.id,
    state: stateOut(entry.state, enumCase),
    stateChangedAt: iso(entry.stateChangedAt),
    priorityValue: entry.priorityValue,
    priorityName: entry.priorityName,
    usedDefaultPriorityName: entry.usedDefaultPriorityName ?? undefined,
    skipTheLine: entry.skipTheLine,
    noBatch: entry.noBatch,
    prNumber: entry.prNumber,
    prTitle: entry.title,
    prSha: entry.headSha,
    prBaseBranch: entry.baseBranch,
    prAuthor: entry.author,
    ...outlookOut(outlook),
  };
}

/** The extension fields position, waitingOn, estimatedMergeAt and estimatedMergeRange; null each without an outlook. */
export function outlookOut(outlook: PrOutlook | null) {
  return {
    position: outlook?.position ?? null,
    waitingOn: outlook ? { code: outlook.waitingOn.code, message: outlook.waitingOn.message } : null,
    estimatedMergeAt: outlook?.estimatedMergeAt != null ? iso(outlook.estimatedMergeAt) : null,
    estimatedMergeRange:
      outlook?.estimatedMergeRange != null
        ? { p10: iso(outlook.estimatedMergeRange.p10), p90: iso(outlook.estimatedMergeRange.p90) }
        : null,
    ...(outlook?.lane ? { laneReason: outlook.lane } : {}),
  };
}

export function submittedPr(view: PrView, enumCase: EnumCase): Static<typeof SubmittedPr> {
  // Added to the item rather than spread into a new object: spreading costs ten times more.
  return Object.assign(prItem(view.entry, enumCase, view.outlook), {
    readiness: readinessOut(view.readiness),
    ...(view.entry.impactedTargets !== null
      ? {
          impactedTargets: {
            targets: view.entry.impactedTargets === 'ALL' ? ('ALL' as const) : [...view.entry.impactedTargets],
            ...(view.entry.impactedTargetsWhy ? { why: view.entry.impactedTargetsWhy } : {}),
          },
        }
      : {}),
    forceEnqueued: view.entry.forceEnqueued,
    isCurrentlySubmittedToQueue: view.isCurrentlySubmittedToQueue,
    verifiedByTestRun: view.entry.verifiedByTestRun,
    reason: reasonOut(view.reason),
    actions: allowedActions(view.entry.state),
    stack: view.stack,
    ...forgeLinksOut(view.site, view.entry),
  });
}

/** `readiness` in Trunk's v1 names (contract §2.4): the forge's verdict is `gitHubMergeability`. */
export const readinessOut = (r: Readiness): Static<typeof SubmittedPr>['readiness'] => ({
  hasImpactedTargets: r.hasImpactedTargets,
  requiresImpactedTargets: r.requiresImpactedTargets,
  doesBaseBranchMatch: r.doesBaseBranchMatch,
  gitHubMergeability: r.mergeability,
});

/** The extension fields prUrl and headCommitUrl: the PR and its head commit on the forge, null when unknown. */
export const forgeLinksOut = (site: RepoSite, e: Pick<Entry, 'prNumber' | 'headSha'>) => ({
  prUrl: prWebUrl(site, e.prNumber),
  headCommitUrl: commitWebUrl(site, e.headSha),
});

export function reasonOut(r: PrReason): Static<typeof SubmittedPr>['reason'] {
  return {
    code: trunkReason(r.code),
    message: r.message,
    ...(r.detail !== undefined ? { detail: r.detail } : {}),
    ...(r.url !== undefined ? { url: r.url } : {}),
    ...(r.testRunId !== undefined ? { testRunId: r.testRunId } : {}),
    at: iso(r.at),
  };
}

/** An entry's timeline for `includeTimeline`: newest change first, states spelled like `state`. */
export function timelineOut(entry: Entry, enumCase: EnumCase): NonNullable<Static<typeof SubmittedPr>['timeline']> {
  return entry.timeline
    .map((t) => ({
      at: new Date(t.at).toISOString(),
      fromState: t.from === null ? null : stateOut(t.from, enumCase),
      toState: stateOut(t.to, enumCase),
      reason: trunkReason(t.reason),
      message: reasonMessage(t.to, t.reason),
      testRunId: t.runId ?? null,
      detail: t.detail ?? null,
    }))
    .reverse();
}

export function queueSettings(snapshot: QueueSnapshot, enumCase: EnumCase, at: number): Static<typeof QueueSettings> {
  const c = snapshot.config;
  return {
    state: stateOut(snapshot.state, enumCase),
    branch: snapshot.targetBranch,
    mode: c.mode,
    concurrency: c.concurrency,
    testingTimeoutMinutes: c.testingTimeoutAuto ? 'auto' : c.testingTimeoutMinutes,
    canOptimisticallyMerge: c.canOptimisticallyMerge,
    pendingFailureDepth: c.pendingFailureDepth,
    batch: c.batch,
    batchingMaxWaitTimeMinutes: c.batchingMaxWaitTimeMinutes,
    batchingMinSize: c.batchingMinSize,
    createPrsForTestingBranches: c.createPrsForTestingBranches,
    commentsEnabled: c.commentsEnabled,
    commandsEnabled: c.commandsEnabled,
    statusCheckEnabled: c.statusCheckEnabled,
    bisectionConcurrency: c.bisectionConcurrency,
    requiredStatuses: c.requiredStatuses,
    directMergeMode: c.directMergeMode,
    optimizationMode: c.optimizationMode,
    mergeMethod: c.mergeMethod,
    extensionEnabled: c.extensionEnabled,
    enqueueingLabel: c.enqueueingLabel,
    labelCommandsEnabled: c.labelCommandsEnabled,
    stateLabelsEnabled: c.stateLabelsEnabled,
    notReadyTimeoutHours: c.notReadyTimeoutHours,
    testBranchConstructionMode: c.testBranchConstructionMode,
    ...adaptiveFields(snapshot),
    ...(c.testingTimeoutAuto ? { testingTimeoutMinutesInForce: testingTimeoutInForceOf(snapshot) } : {}),
    ...(c.ciRetries ? { ciRetries: c.ciRetries } : {}),
    ...(c.riskAwareBatching === 'off' ? { riskAwareBatching: 'off' as const } : {}),
    ...(c.allSkippedPasses ? { allSkippedPasses: true } : {}),
    ...(c.tryConcurrency !== undefined ? { tryConcurrency: c.tryConcurrency } : {}),
    ...(c.requiredStatusStartTimeoutMinutes
      ? { requiredStatusStartTimeoutMinutes: c.requiredStatusStartTimeoutMinutes }
      : {}),
    ...freezeFields(snapshot, at),
    ...quarantineFields(snapshot),
    ...(c.impactedTargetsFromPaths ? { impactedTargetsFromPaths: c.impactedTargetsFromPaths } : {}),
    ...(c.commitMessages ? { commitMessages: c.commitMessages } : {}),
  };
}

/**
 * greenline's quarantine of required statuses: the settings while used, and each status's figures
 * while a setting is used, a status is quarantined or CI is retried (absent otherwise).
 */
export function quarantineFields(snapshot: QueueSnapshot): Partial<Static<typeof QueueSettings>> {
  const c = snapshot.config;
  const statuses = statusFlakiness(snapshot);
  const manual = c.quarantinedStatuses ?? [];
  const auto = c.autoQuarantine === 'on';
  const shown = manual.length > 0 || auto || (c.ciRetries ?? 0) > 0 || statuses.some((s) => s.quarantined);
  return {
    ...(manual.length > 0 ? { quarantinedStatuses: [...manual] } : {}),
    ...(auto
      ? {
          autoQuarantine: 'on' as const,
          autoQuarantineThreshold: c.autoQuarantineThreshold ?? DEFAULT_AUTO_QUARANTINE_THRESHOLD,
          autoQuarantineMinResults: c.autoQuarantineMinResults ?? DEFAULT_AUTO_QUARANTINE_MIN_RESULTS,
        }
      : {}),
    ...(shown
      ? {
          statusQuarantine: statuses.map((s) => ({
            ...s,
            recentFlakyRate: Math.round(s.recentFlakyRate * 10000) / 10000,
            quarantinedSince: s.quarantinedSince === null ? null : iso(s.quarantinedSince),
          })),
        }
      : {}),
  };
}

/** greenline's freezes, and whether they hold the queue at `at`: only while the queue has some. */
function freezeFields(snapshot: QueueSnapshot, at: number): Partial<Static<typeof QueueSettings>> {
  const freezes = snapshot.config.freezes;
  return freezes ? { freezes, ...freezeState(snapshot, at) } : {};
}

/** Whether the queue is frozen at `at`, until when and why, or its next freeze (absent without freezes). */
export function freezeState(snapshot: QueueSnapshot, at: number): Partial<Static<typeof QueueSettings>> {
  const freezes = snapshot.config.freezes;
  if (!freezes) return {};
  const status = freezeStatus(freezes, at);
  return {
    frozen: status.frozen,
    frozenUntil: status.frozen ? iso(status.until) : null,
    frozenReason: status.frozen ? status.reason : null,
    nextFreeze:
      !status.frozen && status.next
        ? { from: iso(status.next.from), until: iso(status.next.until), reason: status.next.reason }
        : null,
  };
}

/** greenline's adaptive mode, its settings and what it does now: only while it is on (absent = off). */
function adaptiveFields(snapshot: QueueSnapshot): Partial<Static<typeof QueueSettings>> {
  const status = adaptiveStatus(snapshot);
  if (status === null) return {};
  return {
    adaptiveMode: 'on',
    adaptiveMinConcurrency: snapshot.config.adaptiveMinConcurrency ?? DEFAULT_ADAPTIVE_MIN_CONCURRENCY,
    adaptiveConcurrency: status.concurrency,
    adaptiveBatchSize: status.batchSize,
    adaptiveFailureRate: Math.round(status.failureRate * 10_000) / 10_000,
  };
}

export function queue(view: QueueView, enumCase: EnumCase): Static<typeof QueueResponse> {
  return {
    ...queueSettings(view.snapshot, enumCase, view.at),
    enqueuedPullRequests: view.enqueued.map((entry) => prItem(entry, enumCase, view.outlook.get(entry.prNumber))),
  };
}

export function testingDetails(view: TestRunView): Static<typeof TestingDetails> {
  const { run } = view;
  return {
    requiredStatuses: view.requiredStatuses,
    requiredStatusesSource: view.requiredStatusesSource,
    testBranch: run.testBranch,
    testBranchSha: run.testSha,
    testCommitUrl: run.testSha === null ? null : commitWebUrl(view.site, run.testSha),
    createdAt: iso(run.createdAt),
    // A run whose test commit is still being built is, for a client, already in progress.
    status: run.status === 'creating' ? 'in_progress' : run.status,
    checkSuites: [],
    // GitHub's commit-status states, UPPERCASE as in contract §2.7.
    statusChecks: view.statuses.map((s) => ({
      context: s.context,
      url: s.url,
      state: s.state.toUpperCase(),
      description: s.description,
    })),
    testedPullRequests: view.testedPullRequests.map((pr) => {
      const changedFiles = run.changes?.prs.find((p) => p.number === pr.prNumber)?.files;
      return {
        prNumber: pr.prNumber,
        prUrl: prWebUrlOrGitHubForm(view.site, pr.prNumber),
        title: pr.title,
        ...(changedFiles ? { changedFiles } : {}),
      };
    }),
    impactedTargets: view.impactedTargets ?? undefined,
    impactedTargetsForTestedPrs: view.impactedTargetsForTestedPrs ?? undefined,
    dependentPrs: run.dependentPrs,
    baseSha: run.changes?.baseSha ?? null,
    changedFiles: run.changes?.files ?? null,
  };
}

/** getTestRunChanges: what the run tests against and what changed; nulls where not known. */
export function testRunChanges(run: TestRun): Static<typeof TestRunChanges> {
  const { changes } = run;
  return {
    testRunId: run.id,
    testBranchSha: run.testSha,
    baseSha: changes?.baseSha ?? null,
    changedFiles: changes?.files ?? null,
    pullRequests: changes?.prs.map((p) => ({ prNumber: p.number, changedFiles: p.files })) ?? null,
  };
}
