import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { IdParams, NoContent } from '../schemas.js';

/** DELETE /v2/merge-queues/{id}: deletes an empty queue (204); one holding PRs is 409 QUEUE_HAS_ACTIVE_ENTRIES. */
export const deleteMergeQueue: V2Route = (app, { service }) => {
  app.delete(
    '/merge-queues/:id',
    {
      config: { scopes: ['queues:write'] },
      schema: {
        summary: 'Delete an empty merge queue',
        tags: ['Merge queues'],
        params: IdParams,
        response: { 204: NoContent('Deleted') },
      },
    },
    async (request, reply) => {
      const handle = await queueOf(service, request, request.params.id);
      await service.deleteQueue(callerOf(request), handle.key);
      return reply.code(204).send();
    },
  );
};
