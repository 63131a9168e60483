import { factsAfter } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, UuidParams } from '../schemas.js';
import { pullRequestOut } from '../wire.js';
import { liveEntryOf } from './live-entry.js';

/** POST /v2/pull-requests/{id}/dequeue: removes the pull request from its queue (cancelled). */
export const dequeuePullRequest: V2Route = (app, { service }) => {
  app.post(
    '/pull-requests/:id/dequeue',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: 'Remove a pull request from its merge queue',
        tags: ['Pull requests'],
        params: UuidParams,
        response: { 200: Answer('PullRequest', 'The pull request after the change') },
      },
    },
    async (request) => {
      const { pr, key } = await liveEntryOf(service, request, request.params.id);
      await service.cancelPullRequest(callerOf(request), key, pr.number);
      return pullRequestOut((await factsAfter(service, request, pr))!);
    },
  );
};
