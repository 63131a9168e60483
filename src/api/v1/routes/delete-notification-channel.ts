import type { NotificationService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { ChannelRequest } from '../schemas/notifications.js';

/** Extension: POST /v1/deleteNotificationChannel — removes a channel and its pending messages. */
export const deleteNotificationChannel: Route<NotificationService> = (app, { service }) => {
  app.post(
    '/deleteNotificationChannel',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Remove a chat notification channel (extension)',
        description: "Its messages, pending ones included, go with it. Not part of Trunk's API.",
        tags: ['Notifications'],
        body: ChannelRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.notifications.remove(authOf(request).orgId, request.body.id, authOf(request));
      return {};
    },
  );
};
