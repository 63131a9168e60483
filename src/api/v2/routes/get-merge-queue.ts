import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, IdParams } from '../schemas.js';
import { mergeQueueOut } from '../wire.js';

/** GET /v2/merge-queues/{id}: the queue with its whole config. */
export const getMergeQueue: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get a merge queue',
        tags: ['Merge queues'],
        params: IdParams,
        response: { 200: Answer('MergeQueue', 'The queue') },
      },
    },
    async (request) => {
      const handle = await queueOf(service, request, request.params.id);
      return mergeQueueOut(handle, (await service.getQueue(callerOf(request), handle.key)).snapshot);
    },
  );
};
