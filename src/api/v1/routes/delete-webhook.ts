import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { WebhookRequest } from '../schemas/webhooks.js';

/** Extension: POST /v1/deleteWebhook — removes a subscription and its pending deliveries. */
export const deleteWebhook: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/deleteWebhook',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Remove a webhook subscription (extension)',
        description: "Its deliveries, pending ones included, go with it. Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: WebhookRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.webhooks.remove(authOf(request).orgId, request.body.id, authOf(request));
      return {};
    },
  );
};
