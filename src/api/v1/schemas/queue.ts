/** Request and response schemas of the queue endpoints (contract §2.8–§2.11, settings §4). */
import { Type, type TOptional, type TSchema } from '@sinclair/typebox';
import {
  AnyCaseEnum,
  Name,
  Nullable,
  QueueAddress,
  QueueStateOut,
  RequestObject,
  SETTABLE_QUEUE_STATES,
} from './common.js';
import { PrItem } from './pull-request.js';
import { MAX_CI_RETRIES, MAX_CONCURRENCY, STATUS_RESULTS_KEPT } from '../../../engine/index.js';

export const MODES = ['single', 'parallel'] as const;
export const MERGE_METHODS = ['merge_commit', 'squash', 'rebase'] as const;
export const DIRECT_MERGE_MODES = ['off', 'always'] as const;
export const OPTIMIZATION_MODES = ['off', 'bisection_skip_redundant_tests'] as const;
export const TEST_BRANCH_CONSTRUCTION_MODES = ['rename_temp_branch', 'push_new_branch_from_temp'] as const;
export const ADAPTIVE_MODES = ['off', 'on'] as const;
export const AUTO_QUARANTINE_MODES = ['off', 'on'] as const;

/** The `impactedTargetsFromPaths` setting (extension, app/path-targets.ts), as v1 and v2 take it. */
export const PathTargetsSetting = Type.Object(
  {
    targets: Type.Record(Type.String({ minLength: 1 }), Type.Array(Name(), { minItems: 1 }), {
      description: 'Each target name with the path globs (minimatch) that impact it',
    }),
    fallback: Type.Optional(
      Type.Array(Name(), { description: 'Targets of a PR whose paths match no glob; absent: every target' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Extension, default null = off: in parallel mode, the impacted targets of a PR without uploaded ones, ' +
      'computed from its changed paths at its admission. A change applies to PRs admitted after it; ' +
      'PRs already admitted keep their targets',
  },
);

/**
 * The `freezes` setting (extension, freeze.ts). The engine checks what a schema cannot (time zones,
 * cron expressions, until after from) and names the field in its message.
 */
const FreezeWindowSchema = Type.Object({
  days: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Days of the week: mon, tue, wed, thu, fri, sat, sun (with start and end)',
    }),
  ),
  start: Type.Optional(Type.String({ description: 'Local time HH:MM the window starts on each day' })),
  end: Type.Optional(
    Type.String({ description: 'Local time HH:MM it ends; at or before start: the next day; 24:00 = midnight' }),
  ),
  cron: Type.Optional(Type.String({ description: 'Or a cron expression: a freeze starts each time it fires' })),
  durationMinutes: Type.Optional(Type.Integer({ description: 'With cron: how long each freeze lasts' })),
  timeZone: Type.String({ description: 'IANA time zone, e.g. Europe/Berlin' }),
  reason: Type.Optional(Type.String({ description: 'Shown while frozen; default "scheduled freeze"' })),
});
const OneOffFreezeSchema = Type.Object({
  from: Type.String({ description: 'ISO-8601 time the freeze starts' }),
  until: Type.String({ description: 'ISO-8601 time it ends (after from)' }),
  reason: Type.String({ description: 'Why, shown while frozen' }),
});
const FreezesOut = Type.Object({
  windows: Type.Array(FreezeWindowSchema),
  oneOff: Type.Array(OneOffFreezeSchema),
  exemptLabels: Type.Array(Type.String()),
  stopTesting: Type.Boolean(),
});
export const FreezesInput = Nullable(
  Type.Object(
    {
      windows: Type.Optional(Type.Array(FreezeWindowSchema, { description: 'Recurring freezes; default []' })),
      oneOff: Type.Optional(Type.Array(OneOffFreezeSchema, { description: 'One-off freezes; default []' })),
      exemptLabels: Type.Optional(
        Type.Array(Type.String(), { description: 'PRs with one of these labels merge during a freeze; default []' }),
      ),
      stopTesting: Type.Optional(
        Type.Boolean({ description: 'true: no test run starts during a freeze; default false' }),
      ),
    },
    {
      description:
        'Extension: scheduled and one-off freezes, replaced as a whole; null removes them. While frozen the queue ' +
        'starts no merge (with stopTesting no test run); urgent PRs and PRs with an exempt label go on',
    },
  ),
);

const Template = (description: string) => Type.Optional(Type.String({ description }));
const CommitMessagesFields = {
  mergeTitle: Template("Title of the merge commit of each PR (merge_commit); default: the forge's own"),
  mergeBody: Template("Body of the merge commit of each PR (merge_commit); default: the forge's own"),
  squashTitle: Template('Title of the squash commit of each PR (squash); default: "<title> (#<number>)"'),
  squashBody: Template("Body of the squash commit of each PR (squash); default: the forge's own"),
  titlePattern: Template('Regular expression every commit title must match; checked when a PR is submitted'),
};
const CommitMessagesOut = Type.Object(CommitMessagesFields);
export const CommitMessagesInput = Nullable(
  Type.Object(CommitMessagesFields, {
    description:
      'Extension: templates of the commits the queue lands, replaced as a whole; null removes them. Placeholders: ' +
      '{title} {number} {body} {author} {headBranch} {coAuthors} {batch}; {{ and }} are braces. A PR description ' +
      'block between <!-- greenline:commit-message --> and <!-- /greenline:commit-message --> wins over them',
  }),
);

const Count = (description: string) => Type.Integer({ minimum: 1, maximum: 4294967295, description });
/** A number of test runs at once: the engine's limits (config-validation.ts), as on v2. */
const Runs = (description: string) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_CONCURRENCY,
    description,
    'x-expected': `an integer from 1 to ${MAX_CONCURRENCY}`,
  });
const Flag = (description: string) => Type.Boolean({ description });

export const QueueRequest = RequestObject({ ...QueueAddress });

/** Only these four fields (contract §2.8); everything else is set with updateQueue. */
export const CreateQueueRequest = RequestObject({
  ...QueueAddress,
  mode: Type.Optional(AnyCaseEnum(MODES, { description: 'Default single' })),
  concurrency: Type.Optional(Runs('Test runs at once; default 1')),
});

/** Settings of updateQueue, omitted = unchanged (contract §2.10). */
export const QueueSettingsInput = {
  state: AnyCaseEnum(SETTABLE_QUEUE_STATES, { description: 'SWITCHING_MODES is entered by the service only' }),
  mode: AnyCaseEnum(MODES, { description: 'Changing it with PRs in the queue enters SWITCHING_MODES first' }),
  concurrency: Runs('Main-queue test runs at once'),
  bisectionConcurrency: Runs('Bisection test runs at once, beside the main-queue runs'),
  testingTimeoutMinutes: Type.Union([Count('Minutes'), Type.String({ pattern: '^[Aa][Uu][Tt][Oo]$' })], {
    description:
      'A test run older than this fails with TEST_RUN_TIMEOUT. Extension: "auto" = twice the p95 duration ' +
      'of the last 50 successful runs, at least 10 minutes (the previous number until 10 runs are known)',
    'x-expected': 'a positive integer of minutes, or "auto"',
  }),
  pendingFailureDepth: Type.Integer({
    minimum: 0,
    maximum: 4294967295,
    description: 'Successor levels a failed group waits for before it fails',
  }),
  canOptimisticallyMerge: Flag('A passing run vouches for the PRs it included ahead of its own'),
  batch: Flag('Test PRs in batches'),
  batchingMaxWaitTimeMinutes: Count('Wait at most this long for a full batch'),
  batchingMinSize: Count('Target batch size'),
  commentsEnabled: Flag('Comment on PRs'),
  commandsEnabled: Flag('Accept /trunk merge and /trunk cancel comments'),
  createPrsForTestingBranches: Flag('Open a draft PR for each test branch'),
  statusCheckEnabled: Flag('Post a status check on each PR'),
  directMergeMode: AnyCaseEnum(DIRECT_MERGE_MODES, {
    description: 'always: merge without a test branch when that is safe',
  }),
  optimizationMode: AnyCaseEnum(OPTIMIZATION_MODES, { description: 'Reuse known failures within one bisection' }),
  mergeMethod: AnyCaseEnum(MERGE_METHODS, { description: 'How a tested PR lands on the target branch' }),
  requiredStatuses: Nullable(
    Type.Array(Name(), {
      description:
        'Override of the checks that must pass on a test branch; [] requires none (a test run passes ' +
        'once its test commit exists); null leaves it unchanged; remove the override with deleteRequiredStatuses',
    }),
  ),
  deleteRequiredStatuses: Flag('true removes the requiredStatuses override'),
  extensionEnabled: Flag('Browser extension shows the queue for this branch'),
  enqueueingLabel: Name({ description: 'Label that submits a PR' }),
  labelCommandsEnabled: Flag('Submit and cancel by label'),
  stateLabelsEnabled: Flag('Keep a label with the state on each PR'),
  notReadyTimeoutHours: Type.Number({ minimum: 0, description: 'Cancel entries not ready for longer; 0 = never' }),
  testBranchConstructionMode: AnyCaseEnum(TEST_BRANCH_CONSTRUCTION_MODES, {
    description:
      "How a test branch is published from its temporary branch (Trunk's setting, kept): greenline always " +
      'creates the new branch and deletes the temporary one, which also works where rulesets forbid renaming',
  }),
  adaptiveMode: AnyCaseEnum(ADAPTIVE_MODES, {
    description:
      'Extension, default off. on: concurrency is the ceiling of a window that grows per merged PR and ' +
      'shrinks per failed group by half the share of groups that fail, and batches are sized from the measured failure rate',
  }),
  adaptiveMinConcurrency: Runs('Extension: floor of the adaptive window, capped at concurrency; default 2'),
  riskAwareBatching: AnyCaseEnum(ADAPTIVE_MODES, {
    description:
      "Extension, default on (acts with batch): a PR whose author's recent PRs failed in this queue far more " +
      "often than the others' is tested in a group of its own, and its reason says so",
  }),
  freezes: FreezesInput,
  ciRetries: Type.Integer({
    minimum: 0,
    maximum: MAX_CI_RETRIES,
    description:
      'Extension, default 0: times a test run whose required statuses failed is tested again on the same ' +
      'commit before the failure counts',
    'x-expected': `an integer from 0 to ${MAX_CI_RETRIES}`,
  }),
  allSkippedPasses: Flag(
    'Extension, default false: a test run whose required statuses were all skipped passes; otherwise it fails ' +
      'with REQUIRED_STATUSES_SKIPPED, since nothing was tested',
  ),
  tryConcurrency: Type.Integer({
    minimum: 1,
    maximum: 4294967295,
    description:
      'Extension, default 1: how many try builds (tryPullRequest, `/greenline try`) of the queue are built and ' +
      "tested at once; they use runner slots of their own and never delay the queue's runs",
    'x-expected': 'an integer of at least 1',
  }),
  requiredStatusStartTimeoutMinutes: Type.Integer({
    minimum: 0,
    maximum: 4294967295,
    description:
      'Extension, default 0 = off: a run fails with REQUIRED_STATUS_NEVER_STARTED when a required status ' +
      'was not reported at all this many minutes after its CI started',
    'x-expected': 'an integer of minutes >= 0 (0 = off)',
  }),
  quarantinedStatuses: Type.Array(Name(), {
    description:
      'Extension, default []: required statuses that do not gate. Their failure neither fails a test run ' +
      'nor blocks its merge; it is still reported and counted. [] quarantines none (the list is replaced as a whole)',
  }),
  autoQuarantine: AnyCaseEnum(AUTO_QUARANTINE_MODES, {
    description:
      'Extension, default off. on: a required status flaky in at least autoQuarantineThreshold of its recent ' +
      'results is quarantined, and lifted when newer results fall under half the threshold',
  }),
  autoQuarantineThreshold: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1,
    description: 'Extension, default 0.1: the flaky share of recent results that quarantines a status',
    'x-expected': 'a number above 0 and at most 1',
  }),
  autoQuarantineMinResults: Type.Integer({
    minimum: 1,
    maximum: STATUS_RESULTS_KEPT,
    description: 'Extension, default 20: results a status needs before it is quarantined or lifted',
    'x-expected': `an integer from 1 to ${STATUS_RESULTS_KEPT}`,
  }),
  impactedTargetsFromPaths: Nullable(PathTargetsSetting),
  commitMessages: CommitMessagesInput,
};

/** Names older clients send (contract §3 #2), mapped onto the settings above by update-queue.ts. */
export const LegacySettingsInput = {
  testingTimeoutMins: Count('Legacy name of testingTimeoutMinutes'),
  isBatching: Flag('Legacy name of batch'),
  batchingMaxWaitTimeMins: Count('Legacy name of batchingMaxWaitTimeMinutes'),
  batchingMode: AnyCaseEnum(['SPECULATIVE', 'NONE'], {
    description: 'Legacy: SPECULATIVE = batch true, NONE = batch false',
  }),
};

const optional = <T extends Record<string, TSchema>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])) as {
    [K in keyof T]: TOptional<T[K]>;
  };

export const UpdateQueueRequest = RequestObject({
  ...QueueAddress,
  ...optional(QueueSettingsInput),
  ...optional(LegacySettingsInput),
});

/** Whether a queue with freezes is frozen now (extension; getQueue and getQueueActivity): absent without freezes. */
export const FreezeStateProperties = {
  frozen: Type.Optional(
    Type.Boolean({ description: 'Extension: true while a freeze holds merges back (state is unchanged)' }),
  ),
  frozenUntil: Type.Optional(
    Nullable(Type.String({ description: 'Extension: when the freeze ends; null when not frozen' })),
  ),
  frozenReason: Type.Optional(
    Nullable(Type.String({ description: 'Extension: why the queue is frozen; null when not' })),
  ),
  nextFreeze: Type.Optional(
    Nullable(
      Type.Object(
        { from: Type.String(), until: Type.String(), reason: Type.String() },
        { description: 'Extension: the next freeze while not frozen; null when none is scheduled within a week' },
      ),
    ),
  ),
};

/** One required status's flakiness and quarantine (extension, engine quarantine.ts). */
export const StatusQuarantineOut = Type.Object({
  status: Type.String({ description: 'The required status (check name)' }),
  results: Type.Integer({ description: 'Results counted since the queue was created' }),
  flakyPasses: Type.Integer({ description: 'Runs where it failed and then passed when CI was run again' }),
  ignoredFailures: Type.Integer({ description: 'Failures while quarantined, on runs that passed' }),
  recentResults: Type.Integer({ description: 'Results the recent rate is over (since its quarantine, if any)' }),
  recentFlakyRate: Type.Number({ description: 'Flaky share of the recent results, 0 to 1' }),
  quarantined: Type.Boolean(),
  quarantinedBy: Nullable(
    Type.String({ enum: ['setting', 'automatic'], description: 'How it was quarantined; null when not' }),
  ),
  quarantinedSince: Nullable(Type.String({ description: 'When an automatic quarantine started; null otherwise' })),
  quarantineReason: Nullable(Type.String({ description: 'Why, in words, with the figures; null when not' })),
});

/** getQueue's fields without the PR list: what updateQueue returns (contract §2.9, §2.10). */
export const QueueSettingsProperties = {
  state: QueueStateOut,
  branch: Type.String({ description: 'The target branch' }),
  mode: Type.String({ enum: [...MODES] }),
  concurrency: Type.Integer(),
  testingTimeoutMinutes: Type.Union([Type.Integer(), Type.Literal('auto')], {
    description: '"auto" (extension) when the timeout follows the durations of recent successful runs',
  }),
  canOptimisticallyMerge: Type.Boolean(),
  pendingFailureDepth: Type.Integer(),
  batch: Type.Boolean(),
  batchingMaxWaitTimeMinutes: Type.Integer(),
  batchingMinSize: Type.Integer(),
  createPrsForTestingBranches: Type.Boolean(),
  commentsEnabled: Type.Boolean(),
  commandsEnabled: Type.Boolean(),
  statusCheckEnabled: Type.Boolean(),
  bisectionConcurrency: Type.Integer(),
  requiredStatuses: Nullable(Type.Array(Type.String(), { description: 'null when there is no override' })),
  directMergeMode: Type.String({ enum: [...DIRECT_MERGE_MODES] }),
  optimizationMode: Type.String({ enum: [...OPTIMIZATION_MODES] }),
  mergeMethod: Type.String({ enum: [...MERGE_METHODS] }),
  extensionEnabled: Type.Boolean(),
  enqueueingLabel: Type.String(),
  labelCommandsEnabled: Type.Boolean(),
  stateLabelsEnabled: Type.Boolean(),
  notReadyTimeoutHours: Type.Number(),
  testBranchConstructionMode: Type.String({ enum: [...TEST_BRANCH_CONSTRUCTION_MODES] }),
  // Adaptive mode (extension): present only while it is on, so that other queues answer Trunk's shape.
  adaptiveMode: Type.Optional(Type.Literal('on', { description: 'Extension: present only while adaptive mode is on' })),
  adaptiveMinConcurrency: Type.Optional(Type.Integer({ description: 'Extension: floor of the adaptive window' })),
  adaptiveConcurrency: Type.Optional(
    Type.Integer({ description: 'Extension: the adaptive window now, main runs allowed at once' }),
  ),
  adaptiveBatchSize: Type.Optional(
    Type.Integer({ description: 'Extension: PRs per batch while the queue is backed up; 1 without batch' }),
  ),
  adaptiveFailureRate: Type.Optional(
    Type.Number({ description: 'Extension: measured failure rate of concluded PRs, 0 to 1' }),
  ),
  // Freezes (extension): present only while the queue has some, so that other queues answer Trunk's shape.
  freezes: Type.Optional(FreezesOut),
  ...FreezeStateProperties,
  // CI that misbehaves (extensions): present only while set, so that other queues answer Trunk's shape.
  testingTimeoutMinutesInForce: Type.Optional(
    Type.Integer({ description: 'Extension, with testingTimeoutMinutes "auto": the timeout in force now, in minutes' }),
  ),
  ciRetries: Type.Optional(Type.Integer({ description: 'Extension: present only when above 0' })),
  riskAwareBatching: Type.Optional(Type.Literal('off', { description: 'Extension: present only when off' })),
  allSkippedPasses: Type.Optional(Type.Boolean({ description: 'Extension: present only when true' })),
  tryConcurrency: Type.Optional(Type.Integer({ description: 'Extension: present only when set' })),
  requiredStatusStartTimeoutMinutes: Type.Optional(
    Type.Integer({ description: 'Extension: present only when above 0' }),
  ),
  // Quarantine (extension): present only while a status is quarantined or a quarantine setting is used.
  quarantinedStatuses: Type.Optional(
    Type.Array(Type.String(), { description: 'Extension: the setting, present only when not empty' }),
  ),
  autoQuarantine: Type.Optional(Type.Literal('on', { description: 'Extension: present only while it is on' })),
  autoQuarantineThreshold: Type.Optional(Type.Number({ description: 'Extension, with autoQuarantine on' })),
  autoQuarantineMinResults: Type.Optional(Type.Integer({ description: 'Extension, with autoQuarantine on' })),
  commitMessages: Type.Optional(CommitMessagesOut),
  statusQuarantine: Type.Optional(
    Type.Array(StatusQuarantineOut, {
      description:
        'Extension: each required status counted or quarantined, with its flaky figures and, when quarantined, ' +
        'how and why; present with a quarantine setting in use, a status quarantined, or ciRetries above 0',
    }),
  ),
  impactedTargetsFromPaths: Type.Optional(
    Type.Object(
      {
        targets: Type.Record(Type.String(), Type.Array(Type.String())),
        fallback: Type.Optional(Type.Array(Type.String())),
      },
      { description: 'Extension: the setting, present only when set (it applies to PRs admitted after it was set)' },
    ),
  ),
};

export const QueueSettings = Type.Object(QueueSettingsProperties);

export const UpdateQueueResponse = Type.Object({
  ...QueueSettingsProperties,
  notes: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'Extension: what the change means, in words, beyond the settings, present only then: ' +
        '"impactedTargetsFromPaths changed: it applies to PRs admitted from now on; …"',
    }),
  ),
});

export const QueueResponse = Type.Object({
  ...QueueSettingsProperties,
  enqueuedPullRequests: Type.Array(PrItem, { description: 'Queue order; NOT_READY PRs are not listed' }),
});
