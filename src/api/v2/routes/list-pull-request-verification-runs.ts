import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import { pullRequestOf } from '../lookups.js';
import { pageOfList, PageQuery } from '../paging.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { runOut } from '../runs.js';
import { Answer, Query, UuidParams } from '../schemas.js';
import { runStatusesIn } from '../wire.js';
import { RunStatus } from './list-queue-verification-runs.js';

/** GET /v2/pull-requests/{id}/verification-runs: the runs that tested this pull request, newest first (paged). */
export const listPullRequestVerificationRuns: V2Route = (app, { service }) => {
  app.get(
    '/pull-requests/:id/verification-runs',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'List the verification runs that tested a pull request',
        tags: ['Verification runs'],
        params: UuidParams,
        querystring: Query({
          status: RunStatus,
          createdAfter: Type.Optional(Type.String({ description: 'Not supported here: always 400' })),
          sort: Type.Optional(Type.Literal('createdAt')),
          direction: Type.Optional(Type.Literal('desc')),
          ...PageQuery,
        }),
        response: { 200: Answer('VerificationRunList', 'A page of runs') },
      },
    },
    async (request) => {
      const { status, createdAfter, sort: _s, direction: _d, ...page } = request.query;
      if (createdAfter !== undefined) throw invalid('createdAfter is not supported on this list; page with cursor');
      const pr = await pullRequestOf(service, request, request.params.id);
      const handles = await service.directory.queues(callerOf(request), { repoId: pr.repo.id });
      const runs = await service.directory.runs({
        queueIds: handles.map((h) => h.queue.id),
        ...(status !== undefined ? { statuses: runStatusesIn(status) } : {}),
        limit: 100_000,
      });
      const mine = runs.map(({ run }) => run).filter((r) => r.prNumbers.includes(pr.number));
      const found = pageOfList('pullRequests.listVerificationRuns', { id: pr.id, status }, page, mine);
      const byQueue = new Map(runs.map(({ queueId, run }) => [run.id, queueId]));
      const data = await Promise.all(
        found.data.map((run) =>
          runOut(service, request, handles.find((h) => h.queue.id === byQueue.get(run.id))!, run, false),
        ),
      );
      return { ...found, data };
    },
  );
};
