import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import { factsOf, repoOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import { pageOfList, PageQuery } from '../paging.js';
import type { V2Route } from '../route.js';
import { Answer, Query } from '../schemas.js';
import { pullRequestOut } from '../wire.js';

/**
 * GET /v2/pull-requests: pull requests of a repository by number (up to 50) or by head branch, in
 * number order, submitted or not. A number the forge does not know and never submitted is left out.
 */
export const resolvePullRequests: V2Route = (app, { service }) => {
  app.get(
    '/pull-requests',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Find pull requests by repository and number or branch',
        tags: ['Pull requests'],
        querystring: Query({
          repositoryId: Type.String({ format: 'uuid' }),
          number: Type.Optional(
            Type.String({
              pattern: '^[1-9][0-9]{0,7}(,[1-9][0-9]{0,7}){0,49}$',
              description: 'Comma list of up to 50 numbers',
            }),
          ),
          branch: Type.Optional(Type.String({ minLength: 1 })),
          baseBranch: Type.Optional(Type.String({ minLength: 1, description: 'Only with branch' })),
          ...PageQuery,
        }),
        response: { 200: Answer('PullRequestList', 'A page of pull requests') },
      },
    },
    async (request) => {
      const { repositoryId, number, branch, baseBranch, ...page } = request.query;
      if ((number === undefined) === (branch === undefined)) throw invalid('send exactly one of number or branch');
      if (baseBranch !== undefined && branch === undefined) throw invalid('baseBranch goes only with branch');
      const repo = await repoOf(service, request, repositoryId);
      let numbers: number[];
      if (number !== undefined) {
        numbers = [...new Set(number.split(',').map(Number))].sort((a, b) => a - b);
      } else {
        // By head branch: the PRs the queues hold from it (the forge is asked by number only).
        const handles = await service.directory.queues(callerOf(request), {
          repoId: repo.id,
          ...(baseBranch !== undefined ? { targetBranch: baseBranch } : {}),
        });
        numbers = [];
        for (const h of handles) {
          try {
            const view = await service.getSubmittedPullRequest(callerOf(request), h.key, { branch: branch! });
            numbers.push(view.entry.prNumber);
          } catch {
            // No PR from that branch in this queue.
          }
        }
        numbers = [...new Set(numbers)].sort((a, b) => a - b);
      }
      const ids = await service.directory.pullRequestIds(repo, numbers);
      const all: ReturnType<typeof pullRequestOut>[] = [];
      for (const n of numbers) {
        const pr = await service.directory.pullRequest(callerOf(request), ids.get(n)!);
        const facts = await factsOf(service, pr!);
        if (facts) all.push(pullRequestOut(facts, numbers.length > 1));
      }
      return pageOfList('pullRequests.resolveByCoordinates', { repositoryId, number, branch, baseBranch }, page, all);
    },
  );
};
