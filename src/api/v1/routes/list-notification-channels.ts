import type { NotificationService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { channelOut } from '../notification-views.js';
import { ListChannelsRequest, ListChannelsResponse } from '../schemas/notifications.js';

/** Extension: POST /v1/listNotificationChannels — the organization's chat channels and how their latest message went. */
export const listNotificationChannels: Route<NotificationService> = (app, { service }) => {
  app.post(
    '/listNotificationChannels',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'List chat notification channels (extension)',
        description: "With each channel's latest message: status, attempts, last error. Not part of Trunk's API.",
        tags: ['Notifications'],
        body: ListChannelsRequest,
        response: replies(ListChannelsResponse),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      const channels = await service.notifications.list(ctx.orgId, () => ctx.orgName);
      return { channels: channels.map(channelOut) };
    },
  );
};
