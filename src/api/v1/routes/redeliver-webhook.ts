import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { RedeliverRequest } from '../schemas/webhooks.js';

/** Extension: POST /v1/redeliverWebhook — sends a delivery again, with the same webhook-id and body. */
export const redeliverWebhook: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/redeliverWebhook',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Send a webhook delivery again (extension)',
        description:
          "Whatever its state: it becomes due now, with the whole retry schedule ahead of it. Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: RedeliverRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.webhooks.redeliver(authOf(request).orgId, request.body.deliveryId, authOf(request));
      return {};
    },
  );
};
