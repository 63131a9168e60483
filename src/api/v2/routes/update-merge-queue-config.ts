import { Type } from '@sinclair/typebox';
import type { QueueUpdate } from '../../../app/service-port.js';
import { MAX_CONCURRENCY } from '../../../engine/index.js';
import type { QueueConfig } from '../../../engine/types.js';
import { configSource } from '../../config-source.js';
import { Nullable } from '../../v1/schemas/common.js';
import { PathTargetsSetting } from '../../v1/schemas/queue.js';
import { invalid, V2Error } from '../errors.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Body, IdParams } from '../schemas.js';
import { lowerSnake, mergeQueueOut } from '../wire.js';

const int = (minimum: number, maximum: number) => Type.Optional(Type.Integer({ minimum, maximum }));
const flag = () => Type.Optional(Type.Boolean());
const names = () => Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 }));
const oneOf = (...values: string[]) => Type.Optional(Type.Union(values.map((v) => Type.Literal(v))));

export const ConfigPatch = Body(
  {
    concurrency: int(1, MAX_CONCURRENCY),
    bisectionConcurrency: int(0, MAX_CONCURRENCY),
    pendingFailureDepth: int(0, 1000),
    canOptimisticallyMerge: flag(),
    allowBatching: flag(),
    batchingMaxWaitTimeMinutes: int(0, 10080),
    batchingMinSize: int(1, 1000),
    testingTimeoutMinutes: int(0, 10080),
    notReadyTimeoutMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 43200, multipleOf: 60 })),
    createsPrsForTestingBranches: flag(),
    areCommentsEnabled: flag(),
    areCommandsEnabled: flag(),
    isStatusCheckEnabled: flag(),
    isExtensionEnabled: flag(),
    areLabelCommandsEnabled: flag(),
    areStateLabelsEnabled: flag(),
    requiredStatuses: names(),
    allowedBotSubmitters: names(),
    batchingRules: Type.Optional(
      Type.Array(
        Type.Object({ targetPattern: Type.String(), policy: Type.Literal('isolate') }, { additionalProperties: false }),
        { maxItems: 100 },
      ),
    ),
    directMergeMode: oneOf('off', 'always'),
    optimizationMode: oneOf('off', 'bisectionSkipRedundantTests'),
    mergeMethod: oneOf('mergeCommit', 'squash', 'rebase'),
    testBranchConstructionMode: oneOf('renameTempBranch', 'pushNewBranchFromTemp'),
    enqueueingLabel: Type.Optional(Type.String({ minLength: 1 })),
    impactedTargetsFromPaths: Type.Optional(Nullable(PathTargetsSetting)),
  },
  'A JSON Merge Patch of the config: absent keys are left alone; requiredStatuses [] clears the list',
);

/** v2 config names → the queue's own (the same values; enums in their snake spelling). */
export function configUpdate(p: Record<string, unknown>): QueueUpdate {
  if (Array.isArray(p.allowedBotSubmitters) && p.allowedBotSubmitters.length > 0)
    throw new V2Error(
      422,
      'ALLOWED_BOT_SUBMITTERS_FROZEN',
      'allowedBotSubmitters cannot be set on this server; send []',
    );
  if (Array.isArray(p.batchingRules) && p.batchingRules.length > 0)
    throw invalid('batchingRules are not supported by this server; send [] or leave the key out');
  const renames: Record<string, keyof QueueConfig> = {
    concurrency: 'concurrency',
    bisectionConcurrency: 'bisectionConcurrency',
    pendingFailureDepth: 'pendingFailureDepth',
    canOptimisticallyMerge: 'canOptimisticallyMerge',
    allowBatching: 'batch',
    batchingMaxWaitTimeMinutes: 'batchingMaxWaitTimeMinutes',
    batchingMinSize: 'batchingMinSize',
    testingTimeoutMinutes: 'testingTimeoutMinutes',
    createsPrsForTestingBranches: 'createPrsForTestingBranches',
    areCommentsEnabled: 'commentsEnabled',
    areCommandsEnabled: 'commandsEnabled',
    isStatusCheckEnabled: 'statusCheckEnabled',
    isExtensionEnabled: 'extensionEnabled',
    areLabelCommandsEnabled: 'labelCommandsEnabled',
    areStateLabelsEnabled: 'stateLabelsEnabled',
    directMergeMode: 'directMergeMode',
    enqueueingLabel: 'enqueueingLabel',
    impactedTargetsFromPaths: 'impactedTargetsFromPaths',
  };
  const update: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(renames)) if (p[from] !== undefined) update[to] = p[from];
  for (const key of ['optimizationMode', 'mergeMethod', 'testBranchConstructionMode'] as const)
    if (typeof p[key] === 'string') update[key] = lowerSnake(p[key]);
  if (typeof p.notReadyTimeoutMinutes === 'number') update.notReadyTimeoutHours = p.notReadyTimeoutMinutes / 60;
  // v2: an empty list clears the queue's own list (the repository's statuses apply again).
  if (Array.isArray(p.requiredStatuses)) {
    if (p.requiredStatuses.length === 0) update.deleteRequiredStatuses = true;
    else update.requiredStatuses = p.requiredStatuses;
  }
  return update as QueueUpdate;
}

/** PATCH /v2/merge-queues/{id}/config: a JSON Merge Patch of the queue's config. */
export const updateMergeQueueConfig: V2Route = (app, { service }) => {
  app.patch(
    '/merge-queues/:id/config',
    {
      config: { scopes: ['queues:write'] },
      schema: {
        summary: "Change a merge queue's config (JSON Merge Patch)",
        tags: ['Merge queues'],
        params: IdParams,
        body: ConfigPatch,
        response: { 200: Answer('MergeQueue', 'The queue after the change') },
      },
    },
    async (request) => {
      const handle = await queueOf(service, request, request.params.id);
      const ctx = callerOf(request);
      const update = configUpdate(request.body);
      // A queue switching modes refuses the write (SWITCHING_MODES: 409 MODE_CHANGE_IN_PROGRESS).
      const written =
        Object.keys(update).length > 0
          ? await service.updateQueue(
              ctx,
              handle.key,
              { ...update, refuseWhileSwitching: true },
              configSource(request.headers),
            )
          : undefined;
      const after = await queueOf(service, request, handle.shortId);
      // Extension: what the change means beyond the config, in words (as v1's updateQueue says it).
      const notes = written?.notes?.length ? { notes: written.notes } : {};
      return { ...mergeQueueOut(after, (await service.getQueue(ctx, handle.key)).snapshot), ...notes };
    },
  );
};
