import type { NotificationService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { channelOut } from '../notification-views.js';
import { Channel, CreateChannelRequest } from '../schemas/notifications.js';

/**
 * Extension: POST /v1/createNotificationChannel — sends the organization's queue events, in words, to
 * a Slack, Teams or chat webhook (docs/notifications.md).
 */
export const createNotificationChannel: Route<NotificationService> = (app, { service }) => {
  app.post(
    '/createNotificationChannel',
    {
      config: { scopes: ['admin'] },
      schema: {
        summary: 'Send queue events to a chat channel (extension)',
        description:
          "Slack incoming webhook, Teams workflow webhook or a chat webhook taking { text }; every queue of the organization, or one (repo + branch). Not part of Trunk's API.",
        tags: ['Notifications'],
        body: CreateChannelRequest,
        response: replies(Channel),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      const { kind, url, repo, branch, events } = request.body;
      return channelOut(
        await service.notifications.add(
          { id: ctx.orgId, name: ctx.orgName },
          { kind, url, repo: repo ?? null, branch: branch ?? null, events: events ?? null },
          ctx,
        ),
      );
    },
  );
};
