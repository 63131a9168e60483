import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { ListWebhooksRequest, ListWebhooksResponse } from '../schemas/webhooks.js';
import { webhookOut } from '../webhook-views.js';

/** Extension: POST /v1/listWebhooks — the organization's webhook subscriptions (never their secrets). */
export const listWebhooks: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/listWebhooks',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'List webhook subscriptions (extension)',
        description: "Secrets are never listed. Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: ListWebhooksRequest,
        response: replies(ListWebhooksResponse),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      return { webhooks: (await service.webhooks.list({ id: ctx.orgId, name: ctx.orgName })).map(webhookOut) };
    },
  );
};
