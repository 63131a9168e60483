/** Request and response schemas of the PR endpoints (contract §2.1–§2.6). */
import { Type } from '@sinclair/typebox';
import { WAITING_CODES } from '../../../engine/eta.js';
import { PRIORITY_VALUES } from '../../../engine/types.js';
import {
  AnyCaseEnum,
  CommitSha,
  DateTime,
  Name,
  Nullable,
  PR_STATES,
  PrNumber,
  PrStateOut,
  QueueAddress,
  RequestObject,
  Target,
} from './common.js';

export const PRIORITY_NAMES = Object.keys(PRIORITY_VALUES) as (keyof typeof PRIORITY_VALUES)[];

/** Contract §3 #10: 0–255 as an integer or a decimal string, a name in any case, or null (default). */
export const Priority = Type.Union(
  [
    Type.Integer({ minimum: 0, maximum: 255 }),
    Type.String({ pattern: '^[0-9]{1,3}$' }),
    AnyCaseEnum(PRIORITY_NAMES),
    Type.Null(),
  ],
  {
    description:
      'Priority: 0 (highest) to 255, or low (200), medium (100, the default), high (10), urgent (0, ' +
      'may interrupt running tests); null or absent means medium',
    'x-expected': `an integer 0-255, a decimal string, one of ${PRIORITY_NAMES.join(', ')}, or null`,
  },
);

export const PrRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject({ number: PrNumber }),
});

export const SubmitRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject({ number: PrNumber }),
  priority: Type.Optional(Priority),
  noBatch: Type.Optional(Type.Boolean({ description: 'true: always test this PR alone, never in a batch' })),
  commitMessage: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "Extension: the commit message this PR lands with (merge or squash commit), over the queue's " +
        'commitMessages templates: its first line the title, the rest (when given) the body',
    }),
  ),
});

export const GetSubmittedRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject(
    {
      number: Type.Optional(PrNumber),
      branch: Type.Optional(
        Name({
          description:
            'Head branch of the PR: the open PR from it that was submitted, else the most recently closed one',
        }),
      ),
    },
    { description: 'Either number or branch' },
  ),
  includeTimeline: Type.Optional(
    Type.Boolean({
      description: "Also return the entry's timeline: every state change with its reason, newest first",
    }),
  ),
  priority: Type.Optional(
    Type.Unsafe<unknown>({
      description:
        "Ignored: Trunk's legacy Merge API listed it in this request (contract §2.4), so older clients may send it",
    }),
  ),
});

export const ListRequest = RequestObject({
  ...QueueAddress,
  state: Type.Optional(AnyCaseEnum(PR_STATES, { description: 'Only PRs in this state' })),
  since: Type.Optional(
    Type.String({
      format: 'date-time',
      'x-expected': 'an ISO-8601 date-time such as 2026-01-31T12:00:00Z',
      description: 'Only PRs that concluded (merged, failed, cancelled) at or after this time',
    }),
  ),
  until: Type.Optional(
    Type.String({
      format: 'date-time',
      'x-expected': 'an ISO-8601 date-time such as 2026-01-31T12:00:00Z',
      description: 'Only PRs that concluded (merged, failed, cancelled) at or before this time',
    }),
  ),
  cursor: Type.Optional(Name({ description: 'nextCursor of the previous page' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size' })),
});

export const SetImpactedTargetsRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject({
    number: PrNumber,
    sha: CommitSha('Head sha of the PR the targets were computed for'),
  }),
  impactedTargets: Type.Union(
    [
      Type.Array(Target, { description: 'Targets the PR impacts; empty strings are ignored' }),
      AnyCaseEnum(['ALL', 'IMPACTS_ALL'], { description: 'The PR impacts every target' }),
    ],
    { 'x-expected': 'an array of target names or the string "ALL"' },
  ),
});

/** One PR of a queue, as listed by listPullRequests and getQueue (contract §2.5). */
export const PrItemProperties = {
  id: Type.String({ description: 'Queue entry id (stable across resubmissions of the PR to this queue)' }),
  state: PrStateOut,
  stateChangedAt: DateTime('When the entry entered its state'),
  priorityValue: Type.Integer({ description: '0 is the highest priority' }),
  priorityName: Type.String({ description: 'low, medium, high, urgent, or the number for other values' }),
  usedDefaultPriorityName: Type.Optional(
    Type.String({ description: 'The default applied when the submission named no priority' }),
  ),
  skipTheLine: Type.Boolean({ description: 'true for urgent (0): may interrupt running tests' }),
  noBatch: Type.Boolean(),
  prNumber: Type.Integer(),
  prTitle: Type.String(),
  prSha: Type.String({ description: 'Head sha of the PR' }),
  prBaseBranch: Type.String(),
  prAuthor: Type.String(),
  ...OutlookProperties(),
};

/** greenline's extension fields of a PR item: where it stands, what it waits on, when it should merge. */
export function OutlookProperties() {
  return {
    position: Nullable(
      Type.Integer({
        minimum: 1,
        description:
          'greenline extension: 1-based place in queue order among the admitted PRs (parallel mode: in its lane); ' +
          'null while NOT_READY and once concluded',
      }),
    ),
    waitingOn: Nullable(
      Type.Object(
        {
          code: Type.String({ enum: [...WAITING_CODES], description: 'What the PR waits on' }),
          message: Type.String({ description: 'The same as a sentence' }),
        },
        { description: 'greenline extension: what the PR waits on now; null once concluded' },
      ),
    ),
    estimatedMergeAt: Nullable(
      Type.String({
        format: 'date-time',
        description:
          "greenline extension: when the PR should merge if its tests pass, from the queue's observed CI times, " +
          'concurrency, batching and failure rate; null when it cannot be estimated (no finished test run yet, ' +
          'not ready, failing, paused or frozen queue, concluded)',
      }),
    ),
    laneReason: Type.Optional(
      Type.String({
        description:
          'greenline extension, parallel mode: the targets of its lane and why, in words: ' +
          '"web — touches web/** (web)"; present while the queue holds it with its targets known',
      }),
    ),
    estimatedMergeRange: Nullable(
      Type.Object(
        {
          p10: Type.String({ format: 'date-time', description: 'The PR merges later than this 9 times in 10' }),
          p90: Type.String({ format: 'date-time', description: 'The PR merges earlier than this 9 times in 10' }),
        },
        {
          description:
            "greenline extension: how sure estimatedMergeAt is: the 10th and 90th percentiles of the merge times of the queue's model " +
            '(estimatedMergeAt is their median); null whenever estimatedMergeAt is',
        },
      ),
    ),
  };
}

/** greenline's extension fields of a PR on the dashboard: its page and its head commit on the forge (src/forge/links.ts). */
export function ForgeLinkProperties() {
  return {
    prUrl: Nullable(
      Type.String({
        description:
          "greenline extension: the PR's page on its forge: the repository's PR URL template, GitHub's form on GitHub; " +
          'null on a git forge connected without a template (no address known)',
      }),
    ),
    headCommitUrl: Nullable(
      Type.String({
        description:
          "greenline extension: the PR's head commit on its forge (GitHub's form); null on a git forge (no address known)",
      }),
    ),
  };
}

export const PrItem = Type.Object(PrItemProperties);

export const ListResponse = Type.Object({
  pullRequests: Type.Array(PrItem),
  nextCursor: Type.Optional(Type.String({ description: 'Absent on the last page' })),
});

const MERGEABILITY = ['unspecified', 'in_progress', 'mergeable', 'not_mergeable'];

/** greenline's extension of getSubmittedPullRequest: why the PR is in its state, in words. */
export const PrReason = Type.Object(
  {
    code: Type.String({
      description:
        'The reason code: of the latest transition (e.g. TEST_RUN_REQUIRED_STATUS_FAILED, PR_PUSHED_TO, MERGE_GRAPH_MERGE) ' +
        'or, while NOT_READY, of what it waits for (BASE_BRANCH_MISMATCH, CONFLICTS_WITH_TARGET, DRAFT, BLOCKED_BY_FORGE, ' +
        'NOT_MERGEABLE, MERGEABILITY_PENDING, IMPACTED_TARGETS_MISSING)',
    }),
    message: Type.String({
      description: 'The state and the reason as a sentence, e.g. "Failed: a required CI status failed."',
    }),
    detail: Type.Optional(
      Type.String({
        description:
          'Specifics: the failed status and its description, the conflicting files, the new head, who cancelled',
      }),
    ),
    url: Type.Optional(Type.String({ description: 'Link to the failed check, when CI reported one' })),
    testRunId: Type.Optional(
      Type.String({ description: 'The test run the reason belongs to; its log: getTestRunLog' }),
    ),
    at: DateTime('When the PR entered the state the reason explains'),
  },
  { description: 'greenline extension: why the PR is in its state (the latest reason), in words' },
);

/** Contract §2.4, plus noBatch and verifiedByTestRun (§3 #19) and greenline's reason. */
export const SubmittedPr = Type.Object({
  ...PrItemProperties,
  readiness: Type.Object(
    {
      hasImpactedTargets: Type.Boolean({ description: 'Impacted targets were uploaded for the current head sha' }),
      requiresImpactedTargets: Type.Boolean({ description: 'The queue is in parallel mode' }),
      doesBaseBranchMatch: Type.Boolean({ description: "The PR's base branch is the queue's branch" }),
      gitHubMergeability: Type.String({ enum: MERGEABILITY, description: 'What the forge says about merging the PR' }),
    },
    { description: 'A PR starts testing once its base matches, it is mergeable, and (parallel mode) it has targets' },
  ),
  impactedTargets: Type.Optional(
    Type.Object(
      {
        targets: Type.Union([Type.Array(Type.String()), Type.Literal('ALL')]),
        why: Type.Optional(
          Type.String({
            description:
              'Why, in words, when computed from its paths (impactedTargetsFromPaths): "touches web/** (web)"',
          }),
        ),
      },
      { description: 'greenline extension: the targets of its head (its lane in parallel mode); absent without' },
    ),
  ),
  forceEnqueued: Type.Boolean(),
  isCurrentlySubmittedToQueue: Type.Boolean({ description: 'The entry is not in a terminal state' }),
  verifiedByTestRun: Nullable(Type.String({ description: 'Test run whose pass merged this PR' })),
  reason: PrReason,
  actions: Type.Object(
    {
      cancel: Type.Boolean({
        description: 'cancelPullRequest: while the PR is in the queue (not merged, failed or cancelled)',
      }),
      restartTests: Type.Boolean({ description: 'restartTestsOnPullRequest: while it is TESTING or PENDING_FAILURE' }),
      changePriority: Type.Boolean({
        description: 'submitPullRequest with a priority changes it in place: while the PR is in the queue',
      }),
      submitAgain: Type.Boolean({ description: 'submitPullRequest queues it again: once it FAILED or was CANCELLED' }),
    },
    { description: 'greenline extension: what the API accepts for this PR in its state (the dashboard shows these)' },
  ),
  stack: Type.Array(Type.Integer(), {
    description:
      "greenline extension: the queued PRs of the PR's stack (each based on the head branch of the one before), bottom first, this one included; empty when it is in none",
  }),
  ...ForgeLinkProperties(),
  timeline: Type.Optional(
    Type.Array(
      Type.Object({
        at: Type.String({ format: 'date-time' }),
        fromState: Nullable(Type.String({ description: 'State before the change; null for a submission' })),
        toState: Type.String({ description: 'State after the change' }),
        reason: Type.String({
          description: 'Reason code, e.g. API_REQUESTED, TEST_RUN_REQUIRED_STATUS_FAILED, MERGE_GRAPH_MERGE',
        }),
        message: Type.String({
          description: 'The change and its reason as a sentence, e.g. "Failed: a required CI status failed."',
        }),
        testRunId: Nullable(Type.String({ description: 'The test run the change belongs to' })),
        detail: Nullable(Type.String({ description: 'More about the reason, e.g. the files of a merge conflict' })),
      }),
      { description: 'Only with includeTimeline: every trip of the PR through this queue, newest change first' },
    ),
  ),
});

/** The most PRs one getSubmittedPullRequests looks up (Trunk's migration guide). */
export const MAX_BATCH_PRS = 50;

export const GetSubmittedBatchRequest = RequestObject({
  ...QueueAddress,
  prs: Type.Array(RequestObject({ number: PrNumber }), {
    minItems: 1,
    maxItems: MAX_BATCH_PRS,
    description: `The PRs to look up, by number (1 to ${MAX_BATCH_PRS})`,
  }),
  includeTimeline: Type.Optional(
    Type.Boolean({ description: "Also return each entry's timeline, newest change first" }),
  ),
});

export const SubmittedBatch = Type.Object({
  pullRequests: Type.Array(SubmittedPr, { description: 'The PRs submitted to this queue, in the order asked' }),
  notFound: Type.Array(Type.Object({ number: Type.Integer() }), {
    description: 'The PRs asked for that were never submitted to this queue',
  }),
});

export const TestingResultsRequest = RequestObject({
  ...QueueAddress,
  since: Type.Optional(DateTime('Only results that ended at or after this time')),
  until: Type.Optional(DateTime('Only results that ended at or before this time (default: now)')),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Results to skip (default 0)' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Results per page (default 25)' })),
});

export const TestingResults = Type.Object({
  testingResults: Type.Array(
    Type.Object({
      prNumber: Type.Integer(),
      testRunId: Type.String({ description: 'The run: see getMergeQueueTestingDetails' }),
      endedAt: Type.String({ format: 'date-time' }),
      testingDurationMs: Type.Integer({ description: 'Whole seconds, in milliseconds' }),
      outcome: Type.String({ enum: ['passed', 'failed', 'cancelled'] }),
      cycleConclusion: Nullable(
        Type.String({
          description: "The state the PR's trip through the queue ended in; null while it is in the queue",
        }),
      ),
      bisection: Nullable(
        Type.String({
          enum: ['in_bisection', 'entered_bisection'],
          description: 'in_bisection: a bisection run; entered_bisection: this failure split its batch',
        }),
      ),
    }),
  ),
  totalItems: Type.Integer({ description: 'Results in the window, over all pages' }),
});
