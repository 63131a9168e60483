import type { ReadModelService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueHistoryOut } from '../queue-activity-wire.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { QueueHistoryRequest, QueueHistoryResponse } from '../schemas/queue-activity.js';

/** Extension: POST /v1/getQueueHistory — conclusions, time in queue and CI runs per merge by hour. */
export const getQueueHistory: Route<ReadModelService> = (app, { service }) => {
  app.post(
    '/getQueueHistory',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "Get a queue's history by hour (extension)",
        description:
          "Per clock hour: conclusions, time-in-queue p50/p95 and CI runs per merge. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: QueueHistoryRequest,
        response: replies(QueueHistoryResponse),
      },
    },
    async (request) =>
      queueHistoryOut(await service.getQueueHistory(authOf(request), queueKey(request.body), request.body.hours ?? 24)),
  );
};
