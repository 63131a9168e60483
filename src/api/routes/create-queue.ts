import { HttpError } from '../../errors.js';
import { authOf } from '../auth.js';
import { configSource } from '../config-source.js';
import { canonical, queueKey } from '../parse-input.js';
import type { Route } from '../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { CreateQueueRequest, LegacySettingsInput, MODES, QueueSettingsInput } from '../schemas/queue.js';

/** Settings that createQueue does not take: the client must set them with updateQueue. */
const UPDATE_ONLY = new Set(
  [...Object.keys(QueueSettingsInput), ...Object.keys(LegacySettingsInput)].filter((k) => k !== 'mode' && k !== 'concurrency'),
);

/**
 * POST /v1/createQueue (contract §2.8): only repo, targetBranch, mode and concurrency (Terraform
 * creates, then updates). A setting of updateQueue sent here is refused rather than silently dropped.
 * 409 when the branch already has a queue. Created by Terraform, the queue is marked managed by it.
 */
export const createQueue: Route = (app, { service }) => {
  app.post('/createQueue', {
    schema: { summary: 'Create a queue for a branch', tags: ['Queues'], body: CreateQueueRequest, response: replies(Empty) },
  }, async (request) => {
    const { body } = request;
    const setting = Object.keys(body).find((key) => UPDATE_ONLY.has(key));
    if (setting) {
      throw new HttpError('VALIDATION_FAILED', `body/${setting} cannot be set by createQueue; create the queue, then set it with updateQueue`);
    }
    await service.createQueue(authOf(request), queueKey(body), {
      ...(body.mode === undefined ? {} : { mode: canonical(MODES, body.mode, 'body/mode') }),
      ...(body.concurrency === undefined ? {} : { concurrency: body.concurrency }),
    }, configSource(request.headers));
    return {};
  });
};
