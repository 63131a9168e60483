import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { WebhookRequest } from '../schemas/webhooks.js';

/** Extension: POST /v1/enableWebhook — enables a subscription disabled after 5 days of failures. */
export const enableWebhook: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/enableWebhook',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Enable a disabled webhook subscription again (extension)',
        description:
          "New events are delivered again; deliveries given up meanwhile can be sent with redeliverWebhook. Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: WebhookRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.webhooks.enable(authOf(request).orgId, request.body.id, authOf(request));
      return {};
    },
  );
};
