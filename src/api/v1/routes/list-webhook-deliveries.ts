import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { ListDeliveriesRequest, ListDeliveriesResponse } from '../schemas/webhooks.js';
import { deliveryOut } from '../webhook-views.js';

/** Extension: POST /v1/listWebhookDeliveries — a subscription's latest deliveries with every attempt. */
export const listWebhookDeliveries: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/listWebhookDeliveries',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'List the deliveries of a webhook subscription (extension)',
        description:
          "Newest first, each with its payload and every attempt (status, duration, error). Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: ListDeliveriesRequest,
        response: replies(ListDeliveriesResponse),
      },
    },
    async (request) => {
      const { id, limit } = request.body;
      return {
        deliveries: (await service.webhooks.deliveries(authOf(request).orgId, id, limit ?? 50)).map(deliveryOut),
      };
    },
  );
};
