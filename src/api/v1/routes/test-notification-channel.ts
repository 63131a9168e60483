import type { NotificationService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { ChannelRequest, TestChannelResponse } from '../schemas/notifications.js';

/** Extension: POST /v1/testNotificationChannel — sends a test message now and answers how it went. */
export const testNotificationChannel: Route<NotificationService> = (app, { service }) => {
  app.post(
    '/testNotificationChannel',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Send a test message to a chat notification channel (extension)',
        description:
          "Sent at once, not through the outbox; answers ok, the chat's HTTP status and the error. Not part of Trunk's API.",
        tags: ['Notifications'],
        body: ChannelRequest,
        response: replies(TestChannelResponse),
      },
    },
    async (request) => service.notifications.test(authOf(request).orgId, request.body.id),
  );
};
