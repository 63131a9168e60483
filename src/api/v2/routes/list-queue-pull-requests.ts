import { Type } from '@sinclair/typebox';
import type { PrState } from '../../../engine/types.js';
import { invalid } from '../errors.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import { pageOfList, PageQuery } from '../paging.js';
import type { V2Route } from '../route.js';
import { Answer, DateTime, IdParams, Query } from '../schemas.js';
import { pullRequestOut, upperSnake } from '../wire.js';

const STATES = ['notReady', 'pending', 'testing', 'testsPassed', 'merged', 'failed', 'cancelled', 'pendingFailure'];

/** GET /v2/merge-queues/{id}/pull-requests: the queue's PRs, most recently submitted first (paged). */
export const listQueuePullRequests: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/pull-requests',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a merge queue's pull requests",
        tags: ['Pull requests'],
        params: IdParams,
        querystring: Query({
          state: Type.Optional(
            Type.String({
              pattern: `^(${STATES.join('|')})(,(${STATES.join('|')}))*$`,
              description: 'Comma list of states',
            }),
          ),
          author: Type.Optional(Type.String({ minLength: 1 })),
          concludedAfter: Type.Optional(DateTime),
          concludedBefore: Type.Optional(DateTime),
          sort: Type.Optional(Type.Literal('createdAt')),
          direction: Type.Optional(Type.Literal('desc')),
          ...PageQuery,
        }),
        response: { 200: Answer('PullRequestList', 'A page of pull requests') },
      },
    },
    async (request) => {
      const { state, author, concludedAfter, concludedBefore, sort: _s, direction: _d, ...page } = request.query;
      const handle = await queueOf(service, request, request.params.id);
      const ctx = callerOf(request);
      const since = concludedAfter === undefined ? undefined : Date.parse(concludedAfter);
      const until = concludedBefore === undefined ? undefined : Date.parse(concludedBefore);
      if (since !== undefined && until !== undefined && since > until)
        throw invalid('concludedAfter must not be after concludedBefore');
      const states = state?.split(',').map((s) => upperSnake(s) as PrState);
      // All entries of the queue (filtered), then paged: a queue's entries are kept for a bounded time.
      const entries: Awaited<ReturnType<typeof service.listPullRequests>>['items'] = [];
      let cursor: string | undefined;
      do {
        const got = await service.listPullRequests(ctx, handle.key, {
          take: 100,
          ...(cursor !== undefined ? { cursor } : {}),
          ...(since !== undefined ? { since } : {}),
          ...(until !== undefined ? { until } : {}),
        });
        entries.push(...got.items);
        cursor = got.nextCursor;
      } while (cursor !== undefined);
      const kept = entries.filter(
        (e) => (!states || states.includes(e.state)) && (author === undefined || e.author === author),
      );
      const found = pageOfList(
        'mergeQueues.listPullRequests',
        { id: handle.shortId, state, author, concludedAfter, concludedBefore },
        page,
        kept,
      );
      const ids = await service.directory.pullRequestIds(
        handle.repo,
        found.data.map((e) => e.prNumber),
      );
      const data = await Promise.all(
        found.data.map(async (e) => {
          const view = await service.getSubmittedPullRequest(ctx, handle.key, { number: e.prNumber });
          const pr = await service.directory.pullRequest(ctx, ids.get(e.prNumber)!);
          return pullRequestOut(
            {
              id: pr!.id,
              repo: handle.repo,
              createdAt: pr!.createdAt,
              entry: { view, queueShortId: handle.shortId, key: handle.key },
            },
            true,
          );
        }),
      );
      return { ...found, data };
    },
  );
};
