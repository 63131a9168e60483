import { prNotFound } from '../errors.js';
import { factsOf, pullRequestOf } from '../lookups.js';
import type { V2Route } from '../route.js';
import { Answer, UuidParams } from '../schemas.js';
import { pullRequestOut } from '../wire.js';

/** GET /v2/pull-requests/{id}: one pull request with its queue entry and readiness. */
export const getPullRequest: V2Route = (app, { service }) => {
  app.get(
    '/pull-requests/:id',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get a pull request',
        tags: ['Pull requests'],
        params: UuidParams,
        response: { 200: Answer('PullRequest', 'The pull request') },
      },
    },
    async (request) => {
      const pr = await pullRequestOf(service, request, request.params.id);
      const facts = await factsOf(service, pr);
      if (!facts) throw prNotFound(request.params.id);
      return pullRequestOut(facts);
    },
  );
};
