import type { WebhookService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { SecretResponse, WebhookRequest } from '../schemas/webhooks.js';

/** Extension: POST /v1/rotateWebhookSecret — a new signing secret, shown once; the old one stops at once. */
export const rotateWebhookSecret: Route<WebhookService> = (app, { service }) => {
  app.post(
    '/rotateWebhookSecret',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Replace the signing secret of a webhook subscription (extension)',
        description: "The next attempt is signed with the new secret. Not part of Trunk's API.",
        tags: ['Webhooks'],
        body: WebhookRequest,
        response: replies(SecretResponse),
      },
    },
    async (request) => {
      const { id } = request.body;
      return { id, secret: await service.webhooks.rotateSecret(authOf(request).orgId, id, authOf(request)) };
    },
  );
};
