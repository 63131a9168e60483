/** Human-readable forms of a submitted PR and of a list of PRs. */
import type { PullRequestItem, QueueRequest, SubmittedPullRequest } from '../client/index.js';
import { formatFields, formatTable, yesNo } from './output.js';
import { describeQueue, queueFlags } from './queue-address.js';

const priorityOf = (pr: PullRequestItem): string =>
  `${pr.priorityName} (${pr.priorityValue})${pr.usedDefaultPriorityName ? ', the default' : ''}${pr.skipTheLine ? ', skips the line' : ''}`;

function targetsOf(r: SubmittedPullRequest['readiness']): string {
  if (!r.requiresImpactedTargets)
    return r.hasImpactedTargets ? 'uploaded (not required: single mode)' : 'not required (single mode)';
  return r.hasImpactedTargets ? 'uploaded' : 'missing: upload them for the head sha (greenline targets set)';
}

const slugOf = (q: QueueRequest) => ({ repo: `${q.repo.host}/${q.repo.owner}/${q.repo.name}`, branch: q.targetBranch });

/** Why the PR is in its state: the sentence, its specifics, the failed check's link and the run's log. */
function reasonFields(pr: SubmittedPullRequest, queue: QueueRequest): [string, string][] {
  const r = pr.reason;
  return [
    ['Why', r.message],
    ...(r.detail !== undefined ? [['Detail', r.detail] as [string, string]] : []),
    ...(r.url !== undefined ? [['Check', r.url] as [string, string]] : []),
    ...(r.testRunId !== undefined
      ? [
          ['Test run', `${r.testRunId} (log: greenline test-run log ${r.testRunId}${queueFlags(slugOf(queue))})`] as [
            string,
            string,
          ],
        ]
      : []),
  ];
}

/** One line for the end of `--wait`: the sentence and its specifics. */
export function formatReasonLine(pr: SubmittedPullRequest): string {
  return `${pr.reason.message}${pr.reason.detail !== undefined ? ` (${pr.reason.detail})` : ''}`;
}

export function formatPrStatus(pr: SubmittedPullRequest, queue: QueueRequest): string {
  return formatFields([
    ['Pull request', `#${pr.prNumber} ${pr.prTitle} (by ${pr.prAuthor})`],
    ['Queue', describeQueue(queue)],
    ['State', `${pr.state} since ${pr.stateChangedAt}`],
    ...reasonFields(pr, queue),
    ['In queue', yesNo(pr.isCurrentlySubmittedToQueue)],
    ['Priority', priorityOf(pr)],
    ['Batching', pr.noBatch ? 'never (tested alone)' : 'allowed'],
    ['Head sha', pr.prSha],
    [
      'Base branch',
      `${pr.prBaseBranch}${pr.readiness.doesBaseBranchMatch ? '' : ` (not ${queue.targetBranch}: waits until retargeted)`}`,
    ],
    ['Mergeability', pr.readiness.gitHubMergeability],
    ['Impacted targets', targetsOf(pr.readiness)],
    ['Merged by test run', pr.verifiedByTestRun ?? '-'],
    ['Entry id', pr.id],
  ]);
}

export function formatPrList(prs: PullRequestItem[], more: boolean): string {
  if (prs.length === 0) return 'No pull requests.';
  const table = formatTable(
    ['PR', 'STATE', 'PRIORITY', 'SINCE', 'AUTHOR', 'TITLE'],
    prs.map((pr) => [
      `#${pr.prNumber}`,
      pr.state,
      `${pr.priorityName}${pr.noBatch ? ' no-batch' : ''}`,
      pr.stateChangedAt,
      pr.prAuthor,
      pr.prTitle,
    ]),
  );
  return more ? `${table}\n(more: raise --limit)` : table;
}
