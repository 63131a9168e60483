import type { ReadModelService } from '../../../app/service-port.js';
import { TERMINAL_STATES, type PrState } from '../../../engine/types.js';
import { authOf } from '../../auth.js';
import { concludedOut } from '../queue-activity-wire.js';
import { canonical, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { ConcludedRequest, ConcludedResponse } from '../schemas/queue-activity.js';

/**
 * Extension: POST /v1/listConcludedPullRequests — a queue's concluded PRs, newest first, filtered by
 * state, author, conclusion time and text, a page at a time.
 */
export const listConcludedPullRequests: Route<ReadModelService> = (app, { service, enumCase }) => {
  app.post(
    '/listConcludedPullRequests',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a queue's concluded PRs (extension)",
        description:
          "Merged, failed and cancelled PRs, newest first, with the reason in words; filters and a cursor. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: ConcludedRequest,
        response: replies(ConcludedResponse),
      },
    },
    async (request) => {
      const { states, author, from, to, search, cursor, take = 25 } = request.body;
      const page = await service.listConcludedPullRequests(authOf(request), queueKey(request.body), {
        ...(states !== undefined
          ? { states: states.map((s, i) => canonical<PrState>(TERMINAL_STATES, s, `body/states/${i}`)) }
          : {}),
        ...(author !== undefined ? { author } : {}),
        ...(from !== undefined ? { from: Date.parse(from) } : {}),
        ...(to !== undefined ? { to: Date.parse(to) } : {}),
        ...(search !== undefined ? { search } : {}),
        ...(cursor !== undefined ? { cursor } : {}),
        take,
      });
      return concludedOut(page, enumCase(request.headers));
    },
  );
};
