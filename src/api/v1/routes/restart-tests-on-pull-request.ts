import type { PullRequestService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { PrRequest } from '../schemas/pull-request.js';

/**
 * POST /v1/restartTestsOnPullRequest (contract §2.3): restarts the PR's test run in place, keeping its
 * position; other PRs are not retested.
 */
export const restartTestsOnPullRequest: Route<PullRequestService> = (app, { service }) => {
  app.post(
    '/restartTestsOnPullRequest',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: 'Restart the tests of a PR in a queue',
        tags: ['Pull requests'],
        body: PrRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      await service.restartTestsOnPullRequest(
        authOf(request),
        queueKey(request.body),
        prNumber(request.body.pr.number),
      );
      return {};
    },
  );
};
