/** Human-readable forms of a submitted PR, of a list of PRs and of a try build. */
import type { PullRequestItem, QueueRequest, SubmittedPullRequest, TryBuild } from '../client/index.js';
import { laneText } from '../engine/lane-words.js';
import { estimateInWords } from '../lib/estimate-words.js';
import { formatFields, formatTable, yesNo } from './output.js';
import { describeQueue, queueFlags } from './queue-address.js';

const priorityOf = (pr: PullRequestItem): string =>
  `${pr.priorityName} (${pr.priorityValue})${pr.usedDefaultPriorityName ? ', the default' : ''}${pr.skipTheLine ? ', skips the line' : ''}`;

function targetsOf(pr: SubmittedPullRequest): string {
  const r = pr.readiness;
  const had = pr.impactedTargets?.why ? 'computed from its paths' : 'uploaded';
  if (!r.requiresImpactedTargets)
    return r.hasImpactedTargets ? `${had} (not required: single mode)` : 'not required (single mode)';
  return r.hasImpactedTargets ? had : 'missing: upload them for the head sha (greenline targets set)';
}

const slugOf = (q: QueueRequest) => ({ repo: `${q.repo.host}/${q.repo.owner}/${q.repo.name}`, branch: q.targetBranch });

/**
 * The run and where its log is: a CI that reports statuses keeps it behind the check's link; only the
 * built-in runner's runs (which report no link) have a log greenline keeps.
 */
function testRunField(testRunId: string, checkUrl: string | undefined, queue: QueueRequest): string {
  if (checkUrl !== undefined) return `${testRunId} (log: at the check's link above)`;
  return `${testRunId} (log: greenline test-run log ${testRunId}${queueFlags(slugOf(queue))})`;
}

/** Why the PR is in its state: the sentence, its specifics, the failed check's link and the run's log. */
function reasonFields(pr: SubmittedPullRequest, queue: QueueRequest): [string, string][] {
  const r = pr.reason;
  return [
    ['Why', r.message],
    ...(r.detail !== undefined ? [['Detail', r.detail] as [string, string]] : []),
    ...(r.url !== undefined ? [['Check', r.url] as [string, string]] : []),
    ...(r.testRunId !== undefined ? [['Test run', testRunField(r.testRunId, r.url, queue)] as [string, string]] : []),
  ];
}

/** `in 12 min (14:32 UTC)`, or why there is no estimate. */
export function formatEta(pr: Pick<PullRequestItem, 'estimatedMergeAt' | 'waitingOn'>, now: number): string {
  if (pr.estimatedMergeAt === null) return pr.waitingOn === null ? '-' : 'unknown';
  const at = Date.parse(pr.estimatedMergeAt);
  const minutes = Math.max(0, Math.round((at - now) / 60_000));
  return `in ${minutes} min (${pr.estimatedMergeAt.slice(11, 16)} UTC)`;
}

/** `in 12 min: between 2026-01-31 14:20 and 15:10 UTC, most likely 14:32`, the estimate in words. */
function formatEstimate(pr: Pick<PullRequestItem, 'estimatedMergeAt' | 'estimatedMergeRange'>, now: number): string {
  if (pr.estimatedMergeAt === null) return 'unknown (no estimate yet, or the queue does not merge now)';
  const at = Date.parse(pr.estimatedMergeAt);
  const r = pr.estimatedMergeRange;
  const range = r ? { p10: Date.parse(r.p10), p90: Date.parse(r.p90) } : null;
  return `in ${Math.max(0, Math.round((at - now) / 60_000))} min: ${estimateInWords({ at, range })}`;
}

/** Position, what the PR waits on and the estimate, while it is in the queue. */
function outlookFields(pr: SubmittedPullRequest, now: number): [string, string][] {
  if (pr.waitingOn === null) return [];
  return [
    ['Position', pr.position === null ? '- (not admitted yet)' : String(pr.position)],
    ['Waiting on', `${pr.waitingOn.message} (${pr.waitingOn.code})`],
    ['Estimated merge', formatEstimate(pr, now)],
  ];
}

/** One line for the end of `--wait`: the sentence and its specifics. */
export function formatReasonLine(pr: SubmittedPullRequest): string {
  return `${pr.reason.message}${pr.reason.detail !== undefined ? ` (${pr.reason.detail})` : ''}`;
}

/** The PR's stack, bottom first, the PR itself marked: `#1 > #2 (this) > #3`; `-` when it is in none. */
export function formatStack(pr: Pick<SubmittedPullRequest, 'stack' | 'prNumber'>): string {
  if (pr.stack.length === 0) return '-';
  return `${pr.stack.map((n) => `#${n}${n === pr.prNumber ? ' (this)' : ''}`).join(' > ')} (lands bottom first)`;
}

export function formatPrStatus(pr: SubmittedPullRequest, queue: QueueRequest, now = Date.now()): string {
  return formatFields([
    ['Pull request', `#${pr.prNumber} ${pr.prTitle} (by ${pr.prAuthor})`],
    ['Queue', describeQueue(queue)],
    ['State', `${pr.state} since ${pr.stateChangedAt}`],
    ...reasonFields(pr, queue),
    ...outlookFields(pr, now),
    ['In queue', yesNo(pr.isCurrentlySubmittedToQueue)],
    ['Priority', priorityOf(pr)],
    ['Batching', pr.noBatch ? 'never (tested alone)' : 'allowed'],
    ['Head sha', pr.prSha],
    [
      'Base branch',
      `${pr.prBaseBranch}${pr.readiness.doesBaseBranchMatch ? '' : ` (not ${queue.targetBranch}: waits until retargeted)`}`,
    ],
    ['Stack', formatStack(pr)],
    ['Mergeability', pr.readiness.gitHubMergeability],
    ['Impacted targets', targetsOf(pr)],
    ...(pr.impactedTargets
      ? [['  Lane', laneText(pr.impactedTargets.targets, pr.impactedTargets.why)] as [string, string]]
      : []),
    ['Merged by test run', pr.verifiedByTestRun ?? '-'],
    ['Entry id', pr.id],
  ]);
}

export function formatPrList(prs: PullRequestItem[], more: boolean, now = Date.now()): string {
  if (prs.length === 0) return 'No pull requests.';
  const table = formatTable(
    ['PR', 'STATE', 'POS', 'ETA', 'PRIORITY', 'SINCE', 'AUTHOR', 'TITLE'],
    prs.map((pr) => [
      `#${pr.prNumber}`,
      pr.state,
      pr.position === null ? '-' : String(pr.position),
      formatEta(pr, now),
      `${pr.priorityName}${pr.noBatch ? ' no-batch' : ''}`,
      pr.stateChangedAt,
      pr.prAuthor,
      pr.prTitle,
    ]),
  );
  return more ? `${table}\n(more: raise --limit)` : table;
}

/** A try build in lines: its state and why, what it was built on, the commit tested. */
export function formatTry(t: TryBuild): string {
  const base = t.baseSha ? ` on ${t.baseSha.slice(0, 7)}` : '';
  const prs =
    t.prNumbers.length > 1
      ? ` with ${t.prNumbers
          .slice(0, -1)
          .map((n) => `#${n}`)
          .join(', ')} ahead`
      : '';
  const built = t.baseSha
    ? [
        `  built${base}${prs}${t.onQueue ? ' (on top of the queue)' : ''}${t.testSha ? `, tested ${t.testSha.slice(0, 7)}` : ''}`,
      ]
    : [];
  return [
    `Try of PR #${t.prNumber} (${t.headSha.slice(0, 7)}): ${t.state.toUpperCase()}`,
    `  ${t.detail}`,
    ...built,
    `  asked by ${t.requestedBy} at ${t.createdAt}`,
  ].join('\n');
}
