import type { ReadModelService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueActivityOut } from '../queue-activity-wire.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { QueueActivityResponse } from '../schemas/queue-activity.js';
import { QueueRequest } from '../schemas/queue.js';

/**
 * Extension: POST /v1/getQueueActivity — what a queue is doing now: PRs in queue order with their
 * lane, the test runs in flight and the PRs each includes, the latest conclusions.
 */
export const getQueueActivity: Route<ReadModelService> = (app, { service, enumCase }) => {
  app.post(
    '/getQueueActivity',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "Get a queue's live activity (extension)",
        description:
          "PRs in queue order, test runs in flight with the PRs they include, the latest concluded PRs. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: QueueRequest,
        response: replies(QueueActivityResponse),
      },
    },
    async (request) =>
      queueActivityOut(
        await service.getQueueActivity(authOf(request), queueKey(request.body)),
        enumCase(request.headers),
      ),
  );
};
