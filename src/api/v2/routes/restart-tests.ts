import { factsAfter } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, UuidParams } from '../schemas.js';
import { pullRequestOut } from '../wire.js';
import { liveEntryOf } from './live-entry.js';

/** POST /v2/pull-requests/{id}/restart-tests: tests a testing or pendingFailure entry again. */
export const restartTests: V2Route = (app, { service }) => {
  app.post(
    '/pull-requests/:id/restart-tests',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: "Restart a pull request's tests",
        tags: ['Pull requests'],
        params: UuidParams,
        response: { 200: Answer('PullRequest', 'The pull request after the change') },
      },
    },
    async (request) => {
      const { pr, key } = await liveEntryOf(service, request, request.params.id);
      // Another live state refuses (RESTART_NOT_ALLOWED: 422 PR_TESTS_NOT_RESTARTABLE).
      await service.restartTestsOnPullRequest(callerOf(request), key, pr.number);
      return pullRequestOut((await factsAfter(service, request, pr))!);
    },
  );
};
