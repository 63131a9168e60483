import type { PullRequestService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { PrRequest } from '../schemas/pull-request.js';

/**
 * POST /v1/cancelPullRequest (contract §2.2): removes the PR from the queue; PRs that were tested on
 * top of it restart.
 */
export const cancelPullRequest: Route<PullRequestService> = (app, { service }) => {
  app.post(
    '/cancelPullRequest',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: { summary: 'Cancel a PR in a queue', tags: ['Pull requests'], body: PrRequest, response: replies(Empty) },
    },
    async (request) => {
      await service.cancelPullRequest(authOf(request), queueKey(request.body), prNumber(request.body.pr.number));
      return {};
    },
  );
};
