import type { QueueService } from '../../../app/service-port.js';
import { ServiceError } from '../../../lib/errors.js';
import { authOf } from '../../auth.js';
import { configSource } from '../../config-source.js';
import { canonical, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { CreateQueueRequest, LegacySettingsInput, MODES, QueueSettingsInput } from '../schemas/queue.js';

/** Settings that createQueue does not take: the client must set them with updateQueue. */
const UPDATE_ONLY = new Set(
  [...Object.keys(QueueSettingsInput), ...Object.keys(LegacySettingsInput)].filter(
    (k) => k !== 'mode' && k !== 'concurrency',
  ),
);

/**
 * POST /v1/createQueue (contract §2.8): only repo, targetBranch, mode and concurrency (Terraform
 * creates, then updates). A setting of updateQueue sent here is refused with a message that says
 * where it goes, before the schema would refuse it as an unknown field.
 * 409 when the branch already has a queue. Created by Terraform, the queue is marked managed by it.
 */
export const createQueue: Route<QueueService> = (app, { service }) => {
  app.post(
    '/createQueue',
    {
      config: { scopes: ['queues:write'] },
      schema: {
        summary: 'Create a queue for a branch',
        tags: ['Queues'],
        body: CreateQueueRequest,
        response: replies(Empty),
      },
      preValidation: async (request) => {
        const body: unknown = request.body;
        const setting =
          typeof body === 'object' && body !== null ? Object.keys(body).find((key) => UPDATE_ONLY.has(key)) : undefined;
        if (setting) {
          throw new ServiceError(
            'VALIDATION_FAILED',
            `body/${setting} cannot be set by createQueue; create the queue, then set it with updateQueue`,
          );
        }
      },
    },
    async (request) => {
      const { body } = request;
      await service.createQueue(
        authOf(request),
        queueKey(body),
        {
          ...(body.mode === undefined ? {} : { mode: canonical(MODES, body.mode, 'body/mode') }),
          ...(body.concurrency === undefined ? {} : { concurrency: body.concurrency }),
        },
        configSource(request.headers),
      );
      return {};
    },
  );
};
