import { Type } from '@sinclair/typebox';
import { pullRequestOf } from '../lookups.js';
import { pageOfList, PageQuery } from '../paging.js';
import type { V2Route } from '../route.js';
import { Answer, Query, UuidParams } from '../schemas.js';
import { transitionsOut } from '../wire.js';

export const Direction = Type.Optional(
  Type.Union([Type.Literal('oldest'), Type.Literal('newest')], {
    description: 'oldest first (default) or newest first',
  }),
);

/** GET /v2/pull-requests/{id}/queue-entry-history: its entry's state transitions (paged). */
export const pullRequestHistory: V2Route = (app, { service }) => {
  app.get(
    '/pull-requests/:id/queue-entry-history',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "A pull request's queue-entry state transitions",
        tags: ['Pull requests'],
        params: UuidParams,
        querystring: Query({ direction: Direction, ...PageQuery }),
        response: { 200: Answer('QueueEntryHistoryList', 'A page of transitions') },
      },
    },
    async (request) => {
      const { direction, ...page } = request.query;
      const pr = await pullRequestOf(service, request, request.params.id);
      const all = transitionsOut(pr.id, pr.latest?.entry.timeline ?? []);
      if (direction === 'newest') all.reverse();
      return pageOfList('pullRequests.queueEntryHistory', { id: pr.id, direction }, page, all);
    },
  );
};
