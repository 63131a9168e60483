import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { CreateWebhookRequest, CreateWebhookResponse } from '../schemas/webhooks.js';
import { webhookOut } from '../webhook-views.js';

/**
 * Extension: POST /v1/createWebhook — subscribes a URL to the organization's queue events
 * (docs/webhooks.md). The answer holds the signing secret, shown only this once.
 */
export const createWebhook: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/createWebhook',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Subscribe a URL to queue events (extension)',
        description: "Answers the subscription and its signing secret (shown only this once). Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: CreateWebhookRequest,
        response: replies(CreateWebhookResponse),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      const { webhook, secret } = await service.webhooks.create(
        { id: ctx.orgId, name: ctx.orgName },
        request.body.url,
        request.body.events,
        ctx,
      );
      return { ...webhookOut(webhook), secret };
    },
  );
};
