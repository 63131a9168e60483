import type { TryService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { PrTry, PrTryRequest, tryBuildWire } from '../schemas/try-builds.js';

/** Extension: POST /v1/getPullRequestTry — the PR's latest try build in the queue (tryPullRequest). */
export const getPullRequestTry: Route<TryService> = (app, { service }) => {
  app.post(
    '/getPullRequestTry',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "Get a PR's latest try build (extension)",
        description: "Not part of Trunk's API.",
        tags: ['Extensions'],
        body: PrTryRequest,
        response: replies(PrTry),
      },
    },
    async (request) => {
      const { body } = request;
      const found = await service.getPullRequestTry(authOf(request), queueKey(body), prNumber(body.pr.number));
      return { try: found ? tryBuildWire(found) : null };
    },
  );
};
