import type { QueueService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { QueueRequest } from '../schemas/queue.js';

/**
 * POST /v1/deleteQueue (contract §2.11): only an empty queue can be deleted (400 otherwise, NOT_READY
 * entries included, so no submission is dropped silently); 404 when there is no queue.
 */
export const deleteQueue: Route<QueueService> = (app, { service }) => {
  app.post(
    '/deleteQueue',
    {
      config: { scopes: ['queues:write'] },
      schema: { summary: 'Delete an empty queue', tags: ['Queues'], body: QueueRequest, response: replies(Empty) },
    },
    async (request) => {
      await service.deleteQueue(authOf(request), queueKey(request.body));
      return {};
    },
  );
};
