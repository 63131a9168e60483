import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { pageOfList, PageQuery } from '../paging.js';
import type { V2Route } from '../route.js';
import { Answer, Query } from '../schemas.js';
import { transitionsOut } from '../wire.js';
import { Direction } from './pull-request-history.js';

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/**
 * GET /v2/queue-entry-history: whole timelines of up to 50 pull requests (`limit` counts pull
 * requests). An unknown id, or another organization's, gives an empty group, never 404.
 */
export const batchHistory: V2Route = (app, { service }) => {
  app.get(
    '/queue-entry-history',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Queue-entry timelines of several pull requests',
        tags: ['Pull requests'],
        querystring: Query({
          pullRequestIds: Type.String({
            pattern: `^${UUID}(,${UUID}){0,49}$`,
            description: 'Comma list of up to 50 ids',
          }),
          direction: Direction,
          ...PageQuery,
        }),
        response: { 200: Answer('BatchQueueEntryHistoryList', 'A page of timelines') },
      },
    },
    async (request) => {
      const { pullRequestIds, direction, ...page } = request.query;
      const ids = [...new Set(pullRequestIds.toLowerCase().split(','))];
      const found = pageOfList('pullRequests.queueEntryHistoryBatch', { pullRequestIds, direction }, page, ids);
      const data = await Promise.all(
        found.data.map(async (id) => {
          const pr = await service.directory.pullRequest(callerOf(request), id);
          const transitions = transitionsOut(id, pr?.latest?.entry.timeline ?? []);
          if (direction === 'newest') transitions.reverse();
          return { pullRequestId: id, transitions };
        }),
      );
      return { ...found, data };
    },
  );
};
