import type { TryService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { TryBuild, TryRequest, tryBuildWire } from '../schemas/try-builds.js';

/**
 * Extension: POST /v1/tryPullRequest — builds the PR merged with the target branch head (or, with
 * `onQueue`, on top of the PRs queued ahead) and runs the queue's CI on it, without queueing the PR.
 * The result is told on the PR and read with getPullRequestTry. One try per PR at a time.
 */
export const tryPullRequest: Route<TryService> = (app, { service }) => {
  app.post(
    '/tryPullRequest',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: 'Try a PR: test it with its target by the queue CI, without queueing it (extension)',
        description:
          "Not part of Trunk's API. Needs a repository connected with a CI command (the built-in CI). A push to the PR cancels its try.",
        tags: ['Extensions'],
        body: TryRequest,
        response: replies(TryBuild),
      },
    },
    async (request) => {
      const { body } = request;
      const started = await service.tryPullRequest(authOf(request), queueKey(body), {
        prNumber: prNumber(body.pr.number),
        ...(body.onQueue !== undefined ? { onQueue: body.onQueue } : {}),
      });
      return tryBuildWire(started);
    },
  );
};
