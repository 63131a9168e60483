import { Type } from '@sinclair/typebox';
import { iso } from '../../../lib/time.js';
import { invalid } from '../errors.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import { pageOfList, PageQuery } from '../paging.js';
import type { V2Route } from '../route.js';
import { Answer, DateTime, IdParams, Query } from '../schemas.js';
import { camel } from '../wire.js';

const MAX_WINDOW_MS = 45 * 24 * 3600 * 1000;

/** GET /v2/merge-queues/{id}/testing-results: finished stretches of testing, newest first (paged). */
export const listTestingResults: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/testing-results',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a merge queue's testing results",
        tags: ['Merge queues'],
        params: IdParams,
        querystring: Query({ since: DateTime, until: Type.Optional(DateTime), ...PageQuery }),
        response: { 200: Answer('TestingResultList', 'A page of testing results') },
      },
    },
    async (request) => {
      const { since, until, ...page } = request.query;
      const from = Date.parse(since);
      const to = until === undefined ? service.directory.now() : Date.parse(until);
      if (to < from) throw invalid('until must not be before since');
      if (to - from > MAX_WINDOW_MS) throw invalid('since and until may be at most 45 days apart');
      const handle = await queueOf(service, request, request.params.id);
      const results = await service.directory.testingResults(callerOf(request), handle.key, from, to);
      const all = results.map((r) => ({
        pullRequestNumber: r.prNumber,
        endedAt: iso(r.endedAt),
        testingDurationMs: r.durationMs,
        outcome: r.outcome,
        ...(r.conclusion ? { entryConclusion: camel(r.conclusion) } : {}),
        isBisection: r.isBisection,
        startedBisection: r.startedBisection,
        verificationRunId: r.runId,
      }));
      return pageOfList('mergeQueues.listTestingResults', { id: handle.shortId, since, until }, page, all);
    },
  );
};
