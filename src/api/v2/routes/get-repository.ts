import { repoOf } from '../lookups.js';
import type { V2Route } from '../route.js';
import { Answer, UuidParams } from '../schemas.js';
import { repositoryOut } from '../wire.js';

/** GET /v2/repositories/{id}: one connected repository. */
export const getRepository: V2Route = (app, { service }) => {
  app.get(
    '/repositories/:id',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get a repository',
        tags: ['Repositories'],
        params: UuidParams,
        response: { 200: Answer('Repository', 'The repository') },
      },
    },
    async (request) => repositoryOut(await repoOf(service, request, request.params.id)),
  );
};
