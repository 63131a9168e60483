import { Type } from '@sinclair/typebox';
import { MAX_CONCURRENCY } from '../../../engine/index.js';
import { configSource } from '../../config-source.js';
import { V2Error } from '../errors.js';
import { repoOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Body, Mode } from '../schemas.js';
import { mergeQueueOut, modeIn } from '../wire.js';

/**
 * POST /v2/merge-queues: creates the queue of a repository's branch (201). As at Trunk, the create is
 * two writes: `bisectionConcurrency` and `enqueueingLabel` are set by a second one.
 */
export const createMergeQueue: V2Route = (app, { service }) => {
  app.post(
    '/merge-queues',
    {
      config: { scopes: ['queues:write'] },
      schema: {
        summary: 'Create a merge queue',
        tags: ['Merge queues'],
        body: Body({
          repositoryId: Type.String({ format: 'uuid' }),
          targetBranch: Type.String({ minLength: 1 }),
          mode: Type.Optional(Mode),
          concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONCURRENCY })),
          bisectionConcurrency: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CONCURRENCY })),
          enqueueingLabel: Type.Optional(Type.String({ minLength: 1 })),
        }),
        response: { 201: Answer('MergeQueue', 'The queue created') },
      },
    },
    async (request, reply) => {
      const { repositoryId, targetBranch, mode, concurrency, bisectionConcurrency, enqueueingLabel } = request.body;
      const ctx = callerOf(request);
      const repo = await repoOf(service, request, repositoryId);
      const key = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch };
      const source = configSource(request.headers);
      await service.createQueue(
        ctx,
        key,
        { ...(mode ? { mode: modeIn(mode) } : {}), ...(concurrency !== undefined ? { concurrency } : {}) },
        source,
      );
      if (bisectionConcurrency !== undefined || enqueueingLabel !== undefined)
        await service.updateQueue(
          ctx,
          key,
          {
            ...(bisectionConcurrency !== undefined ? { bisectionConcurrency } : {}),
            ...(enqueueingLabel !== undefined ? { enqueueingLabel } : {}),
          },
          source,
        );
      const handle = await service.directory.queueOf(repo, targetBranch);
      if (!handle) throw new V2Error(409, 'QUEUE_HAS_ACTIVE_ENTRIES', 'The queue was deleted while it was created');
      void reply.code(201);
      return mergeQueueOut(handle, (await service.getQueue(ctx, key)).snapshot);
    },
  );
};
