/**
 * Why a PR is where it is, in words: the one table from reason codes to sentences, used by the API
 * (getSubmittedPullRequest `reason`, timeline items, the dashboard's activity), and through it by the
 * CLI and the dashboard.
 *
 * A PR's reason is the latest one: while it is NOT_READY, what keeps it there (whyNotReady: base
 * branch, conflicts with the target and their files, draft, the forge's verdict, impacted targets);
 * otherwise its latest transition, with the transition's detail (which required status failed, the
 * conflicting files, who cancelled) and the test run it belongs to.
 */
import {
  admitsPrs,
  freezeStatus,
  isFreezeExempt,
  NOT_READY_WHY,
  TARGET_UNREAD,
  whyNotReady,
  type NotReadyReason,
} from './index.js';
import type { Entry, PrState, QueueSnapshot, QueueState, TransitionReason } from './types.js';

/**
 * QUEUE_FROZEN: a PR that would test or merge waits for the end of a freeze (freezes, extension).
 * QUEUE_PAUSED, QUEUE_DRAINING, QUEUE_SWITCHING_MODES: a PR ready to be admitted waits for the queue.
 * TARGET_UNREAD: a PR waiting to be admitted or tested waits for the queue's target branch to be read.
 */
export type ReasonCode = TransitionReason | NotReadyReason | 'QUEUE_FROZEN' | 'TARGET_UNREAD' | QueueHold;

type QueueHold = 'QUEUE_PAUSED' | 'QUEUE_DRAINING' | 'QUEUE_SWITCHING_MODES';
const HOLD_OF: Record<Exclude<QueueState, 'RUNNING'>, QueueHold> = {
  PAUSED: 'QUEUE_PAUSED',
  DRAINING: 'QUEUE_DRAINING',
  SWITCHING_MODES: 'QUEUE_SWITCHING_MODES',
};

export interface PrReason {
  code: ReasonCode;
  /** A sentence: the state, then why. */
  message: string;
  /** Specifics: the failed status and its description, the conflicting files, who cancelled, … */
  detail?: string;
  /** A link to the failed check, when CI reported one. */
  url?: string;
  /** The test run the reason belongs to (its log: getTestRunLog). */
  testRunId?: string;
  at: number;
}

const WHY: Record<ReasonCode, string> = {
  // submitted
  USER_REQUESTED: 'requested by a user on the forge (comment, label or button)',
  API_REQUESTED: 'requested through the API (greenline CLI, dashboard or another client)',
  TRUNK_ADMIN_REQUESTED: 'requested by an administrator',
  // queued
  MERGE_ITEM_NOW_READY: 'it became ready and waits for a test run',
  MANUAL_PUSH_TO_TARGET_BRANCH: 'the target branch moved outside the queue, so its tests start again',
  PREREQUISITE_MERGE_ITEM_CANCELLED: 'a PR it was tested on top of was cancelled, so its tests start again without it',
  PREREQUISITE_MERGE_ITEM_FAILED: 'a PR it was tested on top of failed, so its tests start again without it',
  PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED:
    'a PR it was tested on top of was merged outside the queue, so its tests start again',
  TESTS_RESTARTED_BY_USER: 'its tests were restarted by a user',
  TESTS_RESTARTED_BY_API_REQUEST: 'its tests were restarted through the API',
  SKIP_THE_LINE_INTERRUPTED: 'an urgent PR went ahead of it, so its tests start again',
  BISECTION_REQUIRED: 'its batch failed; it is tested again in smaller groups to find the PR that broke it',
  BISECTION_TEST_RUN_PASSED: 'its part of a failed batch passed, so it goes back to the queue',
  // failed
  START_TEST_RUN_INVALID_EVENT: 'its test run could not start',
  START_TEST_RUN_MERGE_CONFLICT: 'its changes conflict with the target branch or with a PR ahead of it, so no CI ran',
  START_TEST_RUN_ALREADY_IN_TARGET:
    'its changes are already in the target branch (or in a PR ahead of it), so there is nothing to merge',
  START_TEST_RUN_CONFIG_NOT_FOUND: 'no CI configuration was found for its test run, so no CI ran',
  START_TEST_RUN_CONFIG_PARSING_FAILURE: 'the CI configuration could not be read, so no CI ran',
  START_TEST_RUN_CONFIG_MISSING_REQUIRED_STATUSES: 'the configuration names no required statuses, so no CI ran',
  START_TEST_RUN_CONFIG_BAD_REQUIRED_STATUSES: 'the required statuses of the configuration are invalid, so no CI ran',
  START_TEST_RUN_CONFIG_BAD_VERSION: 'the version of the configuration is not supported, so no CI ran',
  START_TEST_RUN_NO_REQUIRED_STATUSES:
    'neither the queue, the repository nor the branch names a required status, so no CI ran',
  TEST_RUN_REQUIRED_STATUS_FAILED: 'a required CI status failed',
  TEST_RUN_TIMEOUT: 'CI did not finish within the testing timeout',
  MERGE_REFUSED: 'the forge refused to merge it',
  DIRECT_MERGE_REFUSED: 'the forge refused to merge it directly',
  PR_UPDATED_AT_MERGE_TIME: 'the PR changed on the forge while it was being merged',
  START_TEST_RUN_RETRY_EXHAUSTED: 'its test run could not be started after several attempts',
  START_TEST_RUN_DRAFT_PRS_NOT_ALLOWED: 'draft PRs are not tested',
  TEST_RUN_FAILED_BY_OPTIMIZATION: 'a bisection already showed this failure, so it was not tested again',
  TEST_RUN_CANCELLED_BY_CI: 'CI cancelled its checks, and cancelled them again when they were run once more',
  REQUIRED_STATUS_NEVER_STARTED:
    'a required status was never reported within requiredStatusStartTimeoutMinutes (a path filter or a missing CI trigger?)',
  REQUIRED_STATUSES_SKIPPED:
    'CI skipped every required check on its test commit, so nothing was tested (make the workflows run on test branches, or set allSkippedPasses)',
  // cancelled
  PR_CLOSED: 'the PR was closed on the forge',
  PR_PUSHED_TO: 'new commits were pushed to the PR; submit it again to test its new head',
  PR_BASE_BRANCH_CHANGED: 'the base branch of the PR changed',
  PR_CONVERTED_TO_DRAFT: 'the PR was converted to a draft',
  NOT_READY_TIMEOUT_EXPIRED: 'it stayed not ready longer than notReadyTimeoutHours',
  QUEUE_DELETED: 'its queue was deleted',
  // merged
  MERGE_GRAPH_MERGE: 'its tests passed and the queue merged it',
  MANUAL_MERGE: 'it was merged outside the queue',
  MERGE_GRAPH_DIRECT_MERGE:
    'its checks had passed on the current target branch, so the queue merged it without a test run',
  // passed, testing
  TEST_RUN_PASSED: 'its tests passed; it merges once the PRs ahead of it have merged',
  TEST_RUN_PASSED_AFTER_RETRY:
    'its tests passed when run again on the same commit after a failure or cancellation (flaky); it merges once the PRs ahead of it have merged',
  SUCCESSOR_TEST_RUN_PASSED: 'a test run that included it passed (optimistic merging)',
  PASSED_BY_OPTIMIZATION: 'a bisection run that included it passed, so it was not tested again',
  TEST_RUN_STARTED: 'its test run started',
  // not ready
  ...NOT_READY_WHY,
  QUEUE_PAUSED: 'the queue is paused; it is admitted once the queue is resumed',
  QUEUE_DRAINING: 'the queue is draining and admits no more PRs; it is admitted once the queue is resumed',
  QUEUE_SWITCHING_MODES:
    'the queue is switching modes; it is admitted once the PRs admitted before the switch are done',
  QUEUE_FROZEN: 'the queue is frozen; it goes on when the freeze ends',
  TARGET_UNREAD,
};

const STATE_WORD: Record<PrState, string> = {
  NOT_READY: 'Submitted',
  PENDING: 'Queued',
  TESTING: 'Testing',
  TESTS_PASSED: 'Tests passed',
  PENDING_FAILURE: 'Failing',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  MERGED: 'Merged',
};

const NOT_READY_CODES: ReadonlySet<string> = new Set(Object.keys(NOT_READY_WHY));

/** `Failed: a required CI status failed.` The state word of the move, then why; a code unknown here is shown as is. */
export function reasonMessage(to: PrState, code: string): string {
  const why = WHY[code as ReasonCode];
  if (why === undefined) return `${STATE_WORD[to] ?? to}: ${code}.`;
  return `${NOT_READY_CODES.has(code) ? 'Not ready' : STATE_WORD[to]}: ${why}.`;
}

/** What keeps a NOT_READY entry waiting, with its specifics. */
function notReadyDetail(
  code: NotReadyReason,
  queue: Pick<QueueSnapshot, 'targetBranch'>,
  entry: Entry,
): string | undefined {
  switch (code) {
    case 'BASE_BRANCH_MISMATCH':
      return `base branch ${entry.baseBranch}, queue branch ${queue.targetBranch}`;
    case 'CONFLICTS_WITH_TARGET': {
      const files = entry.unmergeable?.files ?? [];
      return files.length > 0 ? `conflicting files: ${files.join(', ')}` : `conflicts with ${queue.targetBranch}`;
    }
    case 'IMPACTED_TARGETS_MISSING':
      return `none uploaded for head ${entry.headSha}`;
    case 'BLOCKED_BY_FORGE':
      return entry.unmergeable?.detail;
    default:
      return undefined;
  }
}

/**
 * QUEUE_FROZEN when a freeze holds the entry at `now`: it passed its tests and waits to merge, or
 * (with `stopTesting`) waits to be tested; urgent and exempt PRs are never held.
 */
function heldByFreeze(queue: Pick<QueueSnapshot, 'config'>, entry: Entry, now: number): PrReason | null {
  const freezes = queue.config.freezes;
  if (!freezes) return null;
  const waits = entry.state === 'TESTS_PASSED' || (entry.state === 'PENDING' && freezes.stopTesting);
  if (!waits || isFreezeExempt(queue.config, entry)) return null;
  const status = freezeStatus(freezes, now);
  if (!status.frozen) return null;
  return {
    code: 'QUEUE_FROZEN',
    message: reasonMessage(entry.state, 'QUEUE_FROZEN'),
    detail: `${status.reason}, until ${new Date(status.until).toISOString()}`,
    at: entry.stateChangedAt,
  };
}

/**
 * The latest reason of an entry. `queue.state`: the queue's state, which holds a ready entry that is not
 * admitted yet (none: not told). `queue.targetSha`: null when the target branch is not known, which
 * holds every entry waiting to be admitted or tested (none: not told). `now`: the time a freeze is judged at (none: freezes are not told). `failedCheckUrl`: the link of the failed required status of the
 * entry's latest run, when CI reported one.
 */
export function prReason(
  queue: Pick<QueueSnapshot, 'targetBranch' | 'config'> & { state?: QueueState; targetSha?: string | null },
  entry: Entry,
  failedCheckUrl?: string | null,
  now?: number,
): PrReason {
  const held = now === undefined ? null : heldByFreeze(queue, entry, now);
  if (held) return held;
  if (queue.targetSha === null && (entry.state === 'NOT_READY' || entry.state === 'PENDING')) {
    return {
      code: 'TARGET_UNREAD',
      message: reasonMessage(entry.state, 'TARGET_UNREAD'),
      detail: `target branch ${queue.targetBranch}`,
      at: entry.stateChangedAt,
    };
  }
  if (entry.state === 'NOT_READY') {
    const code = whyNotReady(queue, entry);
    if (code === null && queue.state !== undefined && !admitsPrs(queue.state)) {
      const hold = HOLD_OF[queue.state as keyof typeof HOLD_OF];
      return { code: hold, message: reasonMessage('NOT_READY', hold), at: entry.stateChangedAt };
    }
    if (code !== null) {
      const detail = notReadyDetail(code, queue, entry);
      return {
        code,
        message: reasonMessage('NOT_READY', code),
        ...(detail !== undefined ? { detail } : {}),
        at: entry.stateChangedAt,
      };
    }
  }
  const last = entry.timeline.at(-1);
  return {
    code: entry.lastReason,
    message: reasonMessage(entry.state, entry.lastReason),
    ...(last?.detail !== undefined ? { detail: last.detail } : {}),
    ...(failedCheckUrl ? { url: failedCheckUrl } : {}),
    ...(last?.runId !== undefined ? { testRunId: last.runId } : {}),
    at: last?.at ?? entry.stateChangedAt,
  };
}
