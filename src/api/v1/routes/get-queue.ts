import type { QueueService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { QueueRequest, QueueResponse } from '../schemas/queue.js';
import { queue } from '../wire.js';

/** POST /v1/getQueue (contract §2.9): state, every setting, and the enqueued PRs in queue order. */
export const getQueue: Route<QueueService> = (app, { service, enumCase }) => {
  app.post(
    '/getQueue',
    {
      config: { scopes: ['read'] },
      schema: { summary: 'Get a queue', tags: ['Queues'], body: QueueRequest, response: replies(QueueResponse) },
    },
    async (request) =>
      queue(await service.getQueue(authOf(request), queueKey(request.body)), enumCase(request.headers)),
  );
};
