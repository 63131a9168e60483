/**
 * What a queue shows on a forge as its PRs move, in words every forge adapter shares: the stages of a
 * PR in the queue, each with its title, emoji and commit status state, the state label of each stage,
 * the marker of the one queue comment per PR, and the text of a stage (with the PR's reason past its
 * test run, and where it stands in the queue). How each forge shows them (check runs, commit statuses,
 * comments, labels) is the adapter's.
 */
import type { PrOutlook } from '../engine/eta.js';
import { estimateInWords } from '../lib/estimate-words.js';
import type { QueueEventPayload } from '../engine/types.js';

export type Stage = 'submitted' | 'queued' | 'testing' | 'pending_failure' | 'merged' | 'failed' | 'canceled';
/** The stages shown by the check: the queue's, and `merging` (tests passed, greenline's required check passed). */
export type CheckStage = Stage | 'merging';

/** The label each stage puts on the PR (stateLabelsEnabled). */
export const LABEL_PREFIX = 'greenline:';
export const STATE_LABELS: Record<Stage, string> = {
  submitted: `${LABEL_PREFIX}not-ready`,
  queued: `${LABEL_PREFIX}queued`,
  testing: `${LABEL_PREFIX}testing`,
  pending_failure: `${LABEL_PREFIX}pending-failure`,
  merged: `${LABEL_PREFIX}merged`,
  failed: `${LABEL_PREFIX}failed`,
  canceled: `${LABEL_PREFIX}cancelled`,
};

export interface Shown {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'cancelled';
  /** Commit status state (token auth). */
  state: 'pending' | 'success' | 'failure' | 'error';
  title: string;
  emoji: string;
}

export const SHOWN: Record<CheckStage, Shown> = {
  submitted: {
    status: 'queued',
    state: 'pending',
    title: 'Submitted: waiting until the pull request is ready',
    emoji: '⏳',
  },
  queued: { status: 'queued', state: 'pending', title: 'Queued', emoji: '⏳' },
  testing: { status: 'in_progress', state: 'pending', title: 'Testing', emoji: '🧪' },
  pending_failure: {
    status: 'in_progress',
    state: 'pending',
    title: 'Tests failed; waiting for the runs ahead to settle the blame',
    emoji: '⚠️',
  },
  merging: {
    status: 'completed',
    conclusion: 'success',
    state: 'success',
    title: 'Tests passed: merging',
    emoji: '✅',
  },
  merged: { status: 'completed', conclusion: 'success', state: 'success', title: 'Merged', emoji: '✅' },
  failed: { status: 'completed', conclusion: 'failure', state: 'failure', title: 'Failed', emoji: '❌' },
  canceled: { status: 'completed', conclusion: 'cancelled', state: 'error', title: 'Cancelled', emoji: '🚫' },
};

/**
 * The details link of a PR's queue status: `template` (the forge's details URL setting) with `{owner}`,
 * `{repo}`, `{branch}` and `{pr}` filled in; null without a template.
 */
export function detailsLink(
  template: string | undefined | null,
  repo: { owner: string; name: string },
  branch: string,
  pr: number,
): string | null {
  if (!template) return null;
  return template
    .replaceAll('{owner}', repo.owner)
    .replaceAll('{repo}', repo.name)
    .replaceAll('{branch}', encodeURIComponent(branch))
    .replaceAll('{pr}', String(pr));
}

/** The name of greenline's own check (a check run, or a commit status context) of a queue on a commit. */
export const checkName = (targetBranch: string): string => `greenline (${targetBranch})`;
export const commentMarker = (targetBranch: string): string => `<!-- greenline:queue=${targetBranch} -->`;

/** The queue comment of a PR: its marker, the stage and its text, the details link, the commands. */
export function commentBody(branch: string, stage: Stage, text: string, link: string | null): string {
  const shown = SHOWN[stage];
  return [
    commentMarker(branch),
    `**greenline merge queue** (\`${branch}\`): ${shown.emoji} ${shown.title}`,
    '',
    text,
    ...(link ? ['', `[Details](${link})`] : []),
    '',
    '<sub>Comment `/greenline merge` to submit this pull request, `/greenline cancel` to take it out of the queue.</sub>',
  ].join('\n');
}

/**
 * Where the PR stands, as a paragraph after the stage's text: its position, what it waits on, its
 * lane in parallel mode (why it is there), and its estimated merge time and range in words (UTC),
 * when the queue knows them; '' otherwise.
 */
export function outlookText(outlook: PrOutlook | undefined): string {
  if (!outlook) return '';
  const parts = [
    ...(outlook.position !== null ? [`Position ${outlook.position} in the queue.`] : []),
    `Waiting on: ${outlook.waitingOn.message}`,
    ...(outlook.lane ? [`In its lane: ${outlook.lane}.`] : []),
    outlook.estimatedMergeAt !== null
      ? `Estimated merge: ${estimateInWords({ at: outlook.estimatedMergeAt, range: outlook.estimatedMergeRange })} (if its tests pass).`
      : 'Estimated merge: not known yet.',
  ];
  return `\n\n${parts.join(' ')}`;
}

/** Text ending as a sentence ends (a detail may start with a name, such as a branch's: kept as it is). */
const sentence = (text: string): string => {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
};

/**
 * The stage in words. Past its test run, the PR's reason as the queue words it everywhere (the
 * API's, the dashboard's), with its specifics: which check failed, which setting blocks merging.
 */
export function describeStage(
  stage: Stage,
  event: QueueEventPayload,
  why: { message: string; detail?: string } | undefined,
  forgeName: string,
): string {
  // Without the words (a caller that has none), the reason's code.
  const reason = why ? [why.message, ...(why.detail ? [why.detail] : [])].map(sentence).join(' ') : event.reason;
  const batch = event.batched
    ? ` together with ${event.prNumbersInBatch
        .filter((n) => !event.prNumbers.includes(n))
        .map((n) => `#${n}`)
        .join(', ')}`
    : '';
  switch (stage) {
    case 'submitted':
      return `Submitted to the merge queue. It is admitted once ${forgeName} reports it mergeable, not a draft, and based on the queue's branch.`;
    case 'queued':
      return reason ?? 'Waiting for a test slot.';
    case 'testing':
      return `Testing${batch} on \`${event.testBranch ?? '?'}\`${event.testBranchSha ? ` at ${event.testBranchSha.slice(0, 7)}` : ''}.`;
    case 'pending_failure':
      return `The test run failed; waiting for the runs ahead of it before it is blamed.${reason ? ` ${reason}` : ''}`;
    case 'merged':
      return reason ?? 'Merged by the queue.';
    case 'failed':
      return `Taken out of the queue. ${reason ?? 'Its test run failed.'} Fix the problem and submit it again.`;
    case 'canceled':
      return reason ?? 'Cancelled.';
  }
}
