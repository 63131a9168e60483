import type { PullRequestService } from '../../../app/service-port.js';
import type { PrState } from '../../../engine/types.js';
import { authOf } from '../../auth.js';
import { canonical, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { PR_STATES, replies } from '../schemas/common.js';
import { ListRequest, ListResponse } from '../schemas/pull-request.js';
import { prItem } from '../wire.js';

/** POST /v1/listPullRequests (contract §2.5): a queue's PRs, a page at a time. */
export const listPullRequests: Route<PullRequestService> = (app, { service, enumCase }) => {
  app.post(
    '/listPullRequests',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a queue's PRs",
        tags: ['Pull requests'],
        body: ListRequest,
        response: replies(ListResponse),
      },
    },
    async (request) => {
      const { state, since, until, cursor, take = 50 } = request.body;
      const page = await service.listPullRequests(authOf(request), queueKey(request.body), {
        state: state === undefined ? undefined : canonical<PrState>(PR_STATES, state, 'body/state'),
        since: since === undefined ? undefined : Date.parse(since),
        until: until === undefined ? undefined : Date.parse(until),
        cursor,
        take,
      });
      return {
        pullRequests: page.items.map((entry) =>
          prItem(entry, enumCase(request.headers), page.outlook.get(entry.prNumber)),
        ),
        nextCursor: page.nextCursor,
      };
    },
  );
};
