import type { RefsService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { NotifyRefsMovedRequest, NotifyRefsMovedResponse } from '../schemas/extensions.js';

/**
 * Extension: POST /v1/notifyRefsMoved — a push notification: refs of a repository moved (a git
 * post-receive hook running `greenline hook post-receive`, or a forge's push webhook), and the
 * queues they concern are read now instead of at the next poll.
 */
export const notifyRefsMoved: Route<RefsService> = (app, { service }) => {
  app.post(
    '/notifyRefsMoved',
    {
      config: { scopes: ['refs:notify'] },
      schema: {
        summary: 'Tell the server that refs of a repository moved (extension)',
        description: "Give repo or url. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: NotifyRefsMovedRequest,
        response: replies(NotifyRefsMovedResponse),
      },
    },
    async (request) => {
      const { repo, url, refs } = request.body;
      return service.notifyRefsMoved(authOf(request), {
        ...(repo ? { repo: { host: repo.host, owner: repo.owner, name: repo.name } } : {}),
        ...(url !== undefined ? { url } : {}),
        refs: refs.map((r) => ({ ref: r.ref, oldSha: r.oldSha.toLowerCase(), newSha: r.newSha.toLowerCase() })),
      });
    },
  );
};
