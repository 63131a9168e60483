import type { PullRequestService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { prNumber, priority, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { SubmitRequest } from '../schemas/pull-request.js';

const PATHS = [
  { url: '/submitPullRequest', summary: 'Submit a PR to a queue', deprecated: false },
  { url: '/queuePullRequest', summary: 'Legacy name of submitPullRequest (same body)', deprecated: true },
];

/**
 * POST /v1/submitPullRequest (contract §2.1), also served under its legacy name queuePullRequest.
 * Submitting a PR that is already in the queue updates its priority and noBatch in place; a PR in a
 * terminal state starts a new trip.
 */
export const submitPullRequest: Route<PullRequestService> = (app, { service }) => {
  for (const { url, summary, deprecated } of PATHS) {
    app.post(
      url,
      {
        config: { scopes: ['pull_requests:write'] },
        schema: { summary, deprecated, tags: ['Pull requests'], body: SubmitRequest, response: replies(Empty) },
      },
      async (request) => {
        const { body } = request;
        await service.submitPullRequest(authOf(request), queueKey(body), {
          prNumber: prNumber(body.pr.number),
          priority: priority(body.priority),
          noBatch: body.noBatch,
          ...(body.commitMessage !== undefined ? { commitMessage: body.commitMessage } : {}),
        });
        return {};
      },
    );
  }
};
