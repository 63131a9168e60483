/** Schemas of the dashboard's extension endpoints (docs/api.md "Dashboard", docs/dashboard.md). */
import { Type } from '@sinclair/typebox';
import { MAX_CONCLUDED_TAKE } from '../../../app/read-models/concluded-prs.js';
import { MAX_HISTORY_HOURS } from '../../../app/read-models/queue-activity.js';
import { TERMINAL_STATES } from '../../../engine/types.js';
import {
  AnyCaseEnum,
  DateTime,
  Name,
  Nullable,
  PrStateOut,
  QueueAddress,
  QueueStateOut,
  Repo,
  RequestObject,
} from './common.js';
import { ForgeLinkProperties, OutlookProperties, PrReason } from './pull-request.js';
import { FreezeStateProperties, MODES, StatusQuarantineOut } from './queue.js';

/** contract §2.10 "Management source": not in getQueue/updateQueue, whose fields Terraform parses. */
const Management = {
  managedBy: Nullable(
    Type.Literal('terraform', {
      description:
        'terraform once createQueue or updateQueue came from Terraform or OpenTofu (User-Agent or X-Source); null otherwise',
    }),
  ),
  driftSince: Nullable(
    DateTime('When a config write from outside Terraform first followed the last Terraform write; null when none has'),
  ),
};

export const ListQueuesRequest = RequestObject({}, { description: 'An empty object: every queue of the organization' });

export const QueueSummary = Type.Object({
  repo: Repo,
  targetBranch: Type.String(),
  state: QueueStateOut,
  mode: Type.String({ enum: [...MODES] }),
  concurrency: Type.Integer(),
  batch: Type.Boolean(),
  depth: Type.Integer({ description: 'PRs in the queue, NOT_READY ones excepted' }),
  notReady: Type.Integer({ description: 'Submitted PRs waiting to become ready' }),
  testing: Type.Integer({ description: 'PRs in TESTING' }),
  mergedLastHour: Type.Integer({ description: 'Throughput: PRs merged in the last hour' }),
  failedLastHour: Type.Integer({ description: 'PRs failed in the last hour' }),
  ...Management,
});

export const ListQueuesResponse = Type.Object({
  queues: Type.Array(QueueSummary, { description: 'Sorted by repository and branch' }),
});

const Lane = Nullable(
  Type.Integer({ description: 'Parallel mode: the PR number heading the lane; null in single mode' }),
);

export const ActivityPr = Type.Object({
  prNumber: Type.Integer(),
  prTitle: Type.String(),
  prAuthor: Type.String(),
  prSha: Type.String(),
  state: PrStateOut,
  priorityName: Type.String(),
  priorityValue: Type.Integer(),
  noBatch: Type.Boolean(),
  submittedAt: DateTime('When the PR was submitted'),
  admittedAt: Nullable(DateTime('When it last entered PENDING from NOT_READY; null while NOT_READY')),
  stateChangedAt: DateTime('When it entered its state'),
  testRunId: Nullable(Type.String({ description: 'The run it is (or was last) tested in' })),
  reason: Type.String({ description: 'Reason code of its latest transition' }),
  explanation: PrReason,
  lane: Lane,
  ...OutlookProperties(),
  ...ForgeLinkProperties(),
});

export const ActivityRun = Type.Object({
  testRunId: Type.String(),
  queueType: Type.String({ enum: ['main', 'bisection'] }),
  status: Type.String({ enum: ['creating', 'in_progress'], description: 'creating: the test commit is being built' }),
  prNumbers: Type.Array(Type.Integer(), { description: 'PRs under test, in queue order' }),
  dependentPrs: Type.Array(Type.Integer(), { description: 'PRs merged underneath as the predicted base, in order' }),
  baseSha: Type.String({ description: 'Target branch commit the test commit is built on' }),
  testBranch: Type.String(),
  testBranchSha: Nullable(Type.String()),
  createdAt: DateTime('When the run was created'),
  lane: Lane,
  retries: Type.Integer({
    description:
      'Times its CI was run again on the same commit (ciRetries, or after a cancellation); 0 = first attempt',
  }),
});

export const RecentPr = Type.Object({
  prNumber: Type.Integer(),
  prTitle: Type.String(),
  state: PrStateOut,
  stateChangedAt: DateTime('When it concluded'),
  reason: Type.String({ description: 'Reason code of the conclusion' }),
  explanation: PrReason,
  flaky: Type.Boolean({
    description: 'Its tests passed only when run again on the same commit (TEST_RUN_PASSED_AFTER_RETRY)',
  }),
  ...ForgeLinkProperties(),
});

export const QueueActivityResponse = Type.Object({
  state: QueueStateOut,
  mode: Type.String({ enum: [...MODES] }),
  concurrency: Type.Integer(),
  batch: Type.Boolean(),
  testingTimeoutMinutes: Type.Union([Type.Integer(), Type.Literal('auto')]),
  testingTimeoutMinutesInForce: Type.Integer({ description: 'The testing timeout that applies now, in minutes' }),
  ciRetries: Type.Integer({ description: 'The ciRetries setting (0 = off)' }),
  targetSha: Nullable(Type.String({ description: 'Last known commit of the target branch' })),
  targetUnread: Nullable(
    Type.String({
      description:
        'Why nothing is tested while the target branch is not known (it could not be read from the forge), in words; null once it was read',
    }),
  ),
  ...FreezeStateProperties,
  statusQuarantine: Type.Optional(
    Type.Array(StatusQuarantineOut, {
      description: 'Extension: the required statuses quarantined now (they do not gate), how and why; absent when none',
    }),
  ),
  ...Management,
  pullRequests: Type.Array(ActivityPr, { description: 'Queue order; NOT_READY PRs last' }),
  testRuns: Type.Array(ActivityRun, { description: 'Runs in flight, in the queue order of their first tested PR' }),
  recentPullRequests: Type.Array(RecentPr, { description: 'The latest 20 concluded PRs, most recent first' }),
});

export const QueueHistoryRequest = RequestObject({
  ...QueueAddress,
  hours: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_HISTORY_HOURS,
      description: 'Clock hours to answer, the current one included; default 24',
    }),
  ),
});

const HistoryFields = {
  merged: Type.Integer(),
  failed: Type.Integer(),
  cancelled: Type.Integer(),
  timeInQueueP50Seconds: Nullable(
    Type.Number({ description: 'Median time from admission to conclusion; null without conclusions' }),
  ),
  timeInQueueP95Seconds: Nullable(Type.Number({ description: '95th percentile of the same' })),
  ciRuns: Type.Integer({
    description:
      'Test runs started (main and bisection) that reached CI and have finished: not the runs in flight, nor those whose test commit was never built',
  }),
  ciRunsPerMerge: Nullable(Type.Number({ description: 'ciRuns / merged; null without merges' })),
};

export const QueueHistoryResponse = Type.Object({
  hours: Type.Array(Type.Object({ start: DateTime('Start of the hour'), ...HistoryFields }), {
    description: 'Oldest first',
  }),
  total: Type.Object(HistoryFields, { description: 'The whole period' }),
});

const ConclusionTime = (description: string) =>
  Type.String({ format: 'date-time', 'x-expected': 'an ISO-8601 date-time such as 2026-01-31T12:00:00Z', description });

export const ConcludedRequest = RequestObject({
  ...QueueAddress,
  states: Type.Optional(
    Type.Array(AnyCaseEnum(TERMINAL_STATES, { description: 'MERGED, FAILED or CANCELLED, any letter case' }), {
      maxItems: TERMINAL_STATES.length,
      description: 'Only PRs that concluded in one of these states; absent or empty: all three',
    }),
  ),
  author: Type.Optional(
    Type.String({ maxLength: 200, description: "Only the PRs of this author (the forge's login, any letter case)" }),
  ),
  from: Type.Optional(ConclusionTime('Only PRs that concluded at or after this time')),
  to: Type.Optional(ConclusionTime('Only PRs that concluded at or before this time')),
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'Text in the title (any letter case), or a PR number (with or without #): PRs matching either',
    }),
  ),
  cursor: Type.Optional(Name({ description: 'nextCursor of the previous page' })),
  take: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_CONCLUDED_TAKE, default: 25, description: 'Page size, default 25' }),
  ),
});

export const ConcludedPr = Type.Object({
  prNumber: Type.Integer(),
  prTitle: Type.String(),
  prAuthor: Type.String(),
  state: PrStateOut,
  concludedAt: DateTime('When it concluded'),
  reason: Type.String({ description: 'Reason code of the conclusion' }),
  explanation: PrReason,
  submittedAt: DateTime('When it was submitted (for the trip that concluded)'),
  timeInQueueSeconds: Type.Number({ description: 'From its submission to its conclusion, in seconds' }),
  testRunId: Nullable(Type.String({ description: 'The run it was last tested in; null if it never was' })),
  flaky: Type.Boolean({
    description: 'Its tests passed only when run again on the same commit (TEST_RUN_PASSED_AFTER_RETRY)',
  }),
});

export const ConcludedResponse = Type.Object({
  pullRequests: Type.Array(ConcludedPr, {
    description: 'Most recently concluded first (then by PR number, highest first)',
  }),
  total: Type.Integer({ description: 'PRs matching the filters, every page together' }),
  nextCursor: Type.Optional(Type.String({ description: 'For the next page; absent on the last page' })),
});

export const StreamQuery = RequestObject({
  repo: Type.String({
    pattern: '^[^/\\s\\u0000-\\u001f\\u007f]+/[^/\\s\\u0000-\\u001f\\u007f]+$',
    'x-expected': 'owner/name, e.g. acme/widgets',
    description: 'The repository, owner/name',
  }),
  repoHost: Name({ description: 'Host of repo, e.g. github.com' }),
  targetBranch: Name({ description: 'The branch the merge queue targets' }),
});
