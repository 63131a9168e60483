/** Hand-made queue activities, as getQueueActivity answers them, for the dashboard's pure modules. */
import type { QueueActivity } from '../../src/client/index.js';

type ActivityPr = QueueActivity['pullRequests'][number];
type RecentPr = QueueActivity['recentPullRequests'][number];
type ActivityRun = QueueActivity['testRuns'][number];

const AT = '2026-01-31T12:00:00.000Z';

/** A PR in the queue: "#n waits." is what it waits on, "#n is STATE." its explanation. */
export function prOf(
  prNumber: number,
  state: string,
  testRunId: string | null = null,
  lane: number | null = null,
): ActivityPr {
  return {
    prNumber,
    prTitle: `Change ${prNumber}`,
    prAuthor: 'octocat',
    prSha: 'b'.repeat(40),
    state,
    priorityName: 'medium',
    priorityValue: 100,
    noBatch: false,
    submittedAt: AT,
    admittedAt: state === 'NOT_READY' ? null : AT,
    stateChangedAt: AT,
    testRunId,
    reason: 'X',
    explanation: { code: 'X', message: `#${prNumber} is ${state}.`, at: AT },
    lane,
    position: null,
    waitingOn: state === 'NOT_READY' ? null : { code: 'PRS_AHEAD', message: `#${prNumber} waits.` },
    estimatedMergeAt: null,
    estimatedMergeRange: null,
    prUrl: null,
    headCommitUrl: null,
  };
}

/** A PR that concluded in `state`: "#n is STATE." is its explanation. */
export function concludedOf(prNumber: number, state: string): RecentPr {
  return {
    prNumber,
    prTitle: `Change ${prNumber}`,
    state,
    stateChangedAt: AT,
    reason: 'X',
    explanation: { code: 'X', message: `#${prNumber} is ${state}.`, at: AT },
    flaky: false,
    prUrl: null,
    headCommitUrl: null,
  };
}

/** A main-queue test run in flight, of `prNumbers` on top of `dependentPrs`. */
export function runOf(
  testRunId: string,
  prNumbers: number[],
  dependentPrs: number[],
  status: 'creating' | 'in_progress' = 'in_progress',
  lane: number | null = null,
): ActivityRun {
  return {
    testRunId,
    queueType: 'main',
    status,
    prNumbers,
    dependentPrs,
    baseSha: 'a'.repeat(40),
    testBranch: `greenline/test/${testRunId}`,
    testBranchSha: null,
    createdAt: AT,
    lane,
    retries: 0,
  };
}

/** A running single-mode queue at commit aaaaaaaa…, with `parts` of its activity (empty otherwise). */
export function activityOf(parts: Partial<QueueActivity>): QueueActivity {
  return {
    state: 'RUNNING',
    mode: 'single',
    concurrency: 2,
    batch: false,
    testingTimeoutMinutes: 60,
    testingTimeoutMinutesInForce: 60,
    ciRetries: 0,
    targetSha: 'a'.repeat(40),
    targetUnread: null,
    managedBy: null,
    driftSince: null,
    pullRequests: [],
    testRuns: [],
    recentPullRequests: [],
    ...parts,
  };
}
