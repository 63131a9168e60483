/** Domain → wire JSON of the dashboard's extension endpoints (states spelled as in wire.ts). */
import type { Static } from '@sinclair/typebox';
import type { ConcludedPage } from '../../app/read-models/concluded-prs.js';
import type {
  QueueActivity,
  QueueHistory,
  QueueManagement,
  QueueSummary,
} from '../../app/read-models/queue-activity.js';
import { prReason } from '../../engine/pr-reason.js';
import { trunkReason } from '../../engine/trunk-names.js';
import { TARGET_UNREAD_SENTENCE, testingTimeoutInForceOf } from '../../engine/index.js';
import type { Entry, PrState, QueueState } from '../../engine/types.js';
import { iso } from '../../lib/time.js';
import type {
  ConcludedResponse,
  ListQueuesResponse,
  QueueActivityResponse,
  QueueHistoryResponse,
} from './schemas/queue-activity.js';
import {
  forgeLinksOut,
  freezeState,
  outlookOut,
  quarantineFields,
  reasonOut,
  stateOut,
  type EnumCase,
} from './wire.js';

/** Who manages the queue's config (contract §2.10): the same two fields in every dashboard answer. */
const managementOut = (m: QueueManagement) => ({
  managedBy: m.managedBy,
  driftSince: m.driftSince === null ? null : iso(m.driftSince),
});

export function queueSummaries(queues: QueueSummary[], enumCase: EnumCase): Static<typeof ListQueuesResponse> {
  return {
    queues: queues.map(({ management, ...q }) => ({
      ...q,
      state: stateOut(q.state as QueueState, enumCase),
      ...managementOut(management),
    })),
  };
}

export function queueActivityOut(a: QueueActivity, enumCase: EnumCase): Static<typeof QueueActivityResponse> {
  const { snapshot } = a;
  return {
    state: stateOut(snapshot.state, enumCase),
    mode: snapshot.config.mode,
    concurrency: snapshot.config.concurrency,
    batch: snapshot.config.batch,
    testingTimeoutMinutes: snapshot.config.testingTimeoutAuto ? 'auto' : snapshot.config.testingTimeoutMinutes,
    testingTimeoutMinutesInForce: testingTimeoutInForceOf(snapshot),
    ciRetries: snapshot.config.ciRetries ?? 0,
    targetSha: snapshot.targetSha,
    targetUnread: snapshot.targetSha === null ? TARGET_UNREAD_SENTENCE : null,
    ...freezeState(snapshot, a.at),
    ...quarantinedOut(snapshot),
    ...managementOut(a.management),
    pullRequests: a.pullRequests.map(({ entry: e, lane, outlook }) => ({
      prNumber: e.prNumber,
      prTitle: e.title,
      prAuthor: e.author,
      prSha: e.headSha,
      state: stateOut(e.state, enumCase),
      priorityName: e.priorityName,
      priorityValue: e.priorityValue,
      noBatch: e.noBatch,
      submittedAt: iso(e.submittedAt),
      admittedAt: e.admittedAt === null ? null : iso(e.admittedAt),
      stateChangedAt: iso(e.stateChangedAt),
      testRunId: e.runId,
      reason: trunkReason(e.lastReason),
      explanation: reasonOut(prReason(snapshot, e, null, a.at)),
      lane,
      ...outlookOut(outlook),
      ...forgeLinksOut(a.site, e),
    })),
    testRuns: a.testRuns.map(({ run, lane }) => ({
      testRunId: run.id,
      queueType: run.queueType,
      status: run.status as 'creating' | 'in_progress',
      prNumbers: run.prNumbers,
      dependentPrs: run.dependentPrs,
      baseSha: run.baseSha,
      testBranch: run.testBranch,
      testBranchSha: run.testSha,
      createdAt: iso(run.createdAt),
      lane,
      retries: (run.failedRetries ?? 0) + (run.cancelledRetries ?? 0),
    })),
    recentPullRequests: a.recent.map((e) => ({
      prNumber: e.prNumber,
      prTitle: e.title,
      state: stateOut(e.state as PrState, enumCase),
      stateChangedAt: iso(e.stateChangedAt),
      reason: trunkReason(e.lastReason),
      explanation: reasonOut(prReason(snapshot, e, null, a.at)),
      flaky: passedAfterRetry(e),
      ...forgeLinksOut(a.site, e),
    })),
  };
}

export function queueHistoryOut(h: QueueHistory): Static<typeof QueueHistoryResponse> {
  const fields = (b: QueueHistory['total']) => ({
    merged: b.merged,
    failed: b.failed,
    cancelled: b.cancelled,
    timeInQueueP50Seconds: b.timeInQueueP50,
    timeInQueueP95Seconds: b.timeInQueueP95,
    ciRuns: b.ciRuns,
    ciRunsPerMerge: b.ciRunsPerMerge,
  });
  return { hours: h.hours.map((b) => ({ start: iso(b.start), ...fields(b) })), total: fields(h.total) };
}

export function concludedOut(page: ConcludedPage, enumCase: EnumCase): Static<typeof ConcludedResponse> {
  return {
    pullRequests: page.items.map((e) => ({
      prNumber: e.prNumber,
      prTitle: e.title,
      prAuthor: e.author,
      state: stateOut(e.state, enumCase),
      concludedAt: iso(e.stateChangedAt),
      reason: trunkReason(e.lastReason),
      explanation: reasonOut(prReason(page.queue, e)),
      submittedAt: iso(e.submittedAt),
      timeInQueueSeconds: Math.max(0, (e.stateChangedAt - e.submittedAt) / 1000),
      testRunId: e.runId ?? null,
      flaky: passedAfterRetry(e),
    })),
    total: page.total,
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
  };
}

/** The entry's latest pass was one after CI ran again on the same commit: flaky. */
function passedAfterRetry(e: Entry): boolean {
  const pass = [...e.timeline].reverse().find((t) => t.to === 'TESTS_PASSED');
  return pass?.reason === 'TEST_RUN_PASSED_AFTER_RETRY';
}

/** The statuses quarantined now, with their figures (getQueue's statusQuarantine, quarantined ones only). */
function quarantinedOut(snapshot: QueueActivity['snapshot']): Partial<Static<typeof QueueActivityResponse>> {
  const all = quarantineFields(snapshot).statusQuarantine ?? [];
  const quarantined = all.filter((s) => s.quarantined);
  return quarantined.length > 0 ? { statusQuarantine: quarantined } : {};
}
