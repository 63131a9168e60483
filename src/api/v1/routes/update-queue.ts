import type { QueueService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { configSource } from '../../config-source.js';
import { queueKey } from '../parse-input.js';
import { toQueueUpdate } from '../queue-update.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { UpdateQueueRequest, UpdateQueueResponse } from '../schemas/queue.js';
import { queueSettings } from '../wire.js';

/**
 * POST /v1/updateQueue (contract §2.10): changes the given settings and returns the queue without
 * its PR list (Terraform reads every setting back from this reply). A write from Terraform marks the
 * queue managed by it; a later write from anything else marks it changed outside Terraform. That mark
 * is not in this reply, whose fields Terraform's provider parses, but in the dashboard's endpoints.
 * `notes` says in words what a change means beyond the settings (impactedTargetsFromPaths).
 */
export const updateQueue: Route<QueueService> = (app, { service, enumCase }) => {
  app.post(
    '/updateQueue',
    {
      config: { scopes: ['queues:write'] },
      schema: {
        summary: "Change a queue's state or settings",
        tags: ['Queues'],
        body: UpdateQueueRequest,
        response: replies(UpdateQueueResponse),
      },
    },
    async (request) => {
      const view = await service.updateQueue(
        authOf(request),
        queueKey(request.body),
        toQueueUpdate(request.body),
        configSource(request.headers),
      );
      const notes = view.notes?.length ? { notes: [...view.notes] } : {};
      return { ...queueSettings(view.snapshot, enumCase(request.headers), view.at), ...notes };
    },
  );
};
