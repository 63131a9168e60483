import { Type } from '@sinclair/typebox';
import type { V2Route } from '../route.js';
import { callerOf } from '../caller.js';
import { invalid } from '../errors.js';
import { pageOfList, PageQuery } from '../paging.js';
import { Answer, Query } from '../schemas.js';
import { mergeQueueOut } from '../wire.js';

/** GET /v2/merge-queues: the organization's queues, oldest first (paged). */
export const listMergeQueues: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List the organization's merge queues",
        tags: ['Merge queues'],
        querystring: Query({
          repositoryId: Type.Optional(Type.String({ format: 'uuid' })),
          targetBranch: Type.Optional(Type.String({ minLength: 1, description: 'Needs repositoryId' })),
          ...PageQuery,
        }),
        response: { 200: Answer('MergeQueueList', 'A page of merge queues') },
      },
    },
    async (request) => {
      const { repositoryId, targetBranch, ...page } = request.query;
      if (targetBranch !== undefined && repositoryId === undefined)
        throw invalid('targetBranch needs repositoryId: a branch names a queue only within a repository');
      const handles = await service.directory.queues(callerOf(request), {
        ...(repositoryId !== undefined ? { repoId: repositoryId.toLowerCase() } : {}),
        ...(targetBranch !== undefined ? { targetBranch } : {}),
      });
      const found = await pageOfList('mergeQueues.list', { repositoryId, targetBranch }, page, handles);
      const data = await Promise.all(
        found.data.map(async (h) => mergeQueueOut(h, (await service.getQueue(callerOf(request), h.key)).snapshot)),
      );
      return { ...found, data };
    },
  );
};
