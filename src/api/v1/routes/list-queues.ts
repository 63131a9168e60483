import type { ReadModelService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueSummaries } from '../queue-activity-wire.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { ListQueuesRequest, ListQueuesResponse } from '../schemas/queue-activity.js';

/** Extension: POST /v1/listQueues — the organization's queues with state, mode, depth and throughput. */
export const listQueues: Route<ReadModelService> = (app, { service, enumCase }) => {
  app.post(
    '/listQueues',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List the organization's queues (extension)",
        description:
          "State, mode, depth and the last hour's merges and failures of every queue. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: ListQueuesRequest,
        response: replies(ListQueuesResponse),
      },
    },
    async (request) => queueSummaries(await service.listQueues(authOf(request)), enumCase(request.headers)),
  );
};
