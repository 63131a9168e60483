import type { NotificationService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { ChannelRequest } from '../schemas/notifications.js';

/** Extension: POST /v1/enableNotificationChannel — enables a channel disabled after 3 days of failures. */
export const enableNotificationChannel: Route<NotificationService> = (app, { service }) => {
  app.post(
    '/enableNotificationChannel',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Enable a disabled chat notification channel (extension)',
        description: "New events are sent to it again. Not part of Trunk's API.",
        tags: ['Notifications'],
        body: ChannelRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.notifications.enable(authOf(request).orgId, request.body.id, authOf(request));
      return {};
    },
  );
};
