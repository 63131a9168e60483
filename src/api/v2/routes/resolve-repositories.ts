import { Type } from '@sinclair/typebox';
import { V2Error } from '../errors.js';
import { pageOfList, PageQuery } from '../paging.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Query } from '../schemas.js';
import { repositoryOut } from '../wire.js';

/** `https://github.com/acme/web.git/` → `github.com/acme/web`; null when it names no repository. */
function slugOf(providerUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(providerUrl);
  } catch {
    return null;
  }
  const path = url.pathname
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .replace(/^\/+/, '');
  const parts = path.split('/');
  return parts.length === 2 && parts.every((p) => p !== '') ? `${url.host}/${path}`.toLowerCase() : null;
}

/** GET /v2/repositories: the connected repository at a provider URL (a one-item page), else 404. */
export const resolveRepositories: V2Route = (app, { service }) => {
  app.get(
    '/repositories',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Find a repository by its provider URL',
        tags: ['Repositories'],
        querystring: Query({ providerUrl: Type.String({ minLength: 1 }), ...PageQuery }),
        response: { 200: Answer('RepositoryList', 'The repository, as a page') },
      },
    },
    async (request) => {
      const { providerUrl, ...page } = request.query;
      const slug = slugOf(providerUrl);
      const repos = (await service.directory.repos(callerOf(request))).filter(
        (r) => `${r.host}/${r.owner}/${r.name}`.toLowerCase() === slug,
      );
      if (repos.length === 0)
        throw new V2Error(
          404,
          'PROVIDER_URL_NOT_FOUND',
          `No connected repository is at ${JSON.stringify(providerUrl)}`,
        );
      return pageOfList('repositories.resolveByProviderUrl', { providerUrl }, page, repos.map(repositoryOut));
    },
  );
};
