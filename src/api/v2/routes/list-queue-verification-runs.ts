import { Type } from '@sinclair/typebox';
import type { QueueRun } from '../../../app/read-models/api-directory.js';
import { queueOf } from '../lookups.js';
import { DEFAULT_LIMIT, pageOf, PageQuery, readCursor } from '../paging.js';
import type { V2Route } from '../route.js';
import { runOut } from '../runs.js';
import { Answer, DateTime, IdParams, Query } from '../schemas.js';
import { runStatusesIn } from '../wire.js';

export const RunStatus = Type.Optional(
  Type.Union(['inProgress', 'failed', 'cancelled', 'succeeded'].map((s) => Type.Literal(s))),
);

/** GET /v2/merge-queues/{id}/verification-runs: the queue's runs, newest first (paged). */
export const listQueueVerificationRuns: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/verification-runs',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a merge queue's verification runs",
        tags: ['Verification runs'],
        params: IdParams,
        querystring: Query({
          status: RunStatus,
          createdAfter: Type.Optional(DateTime),
          sort: Type.Optional(Type.Literal('createdAt')),
          direction: Type.Optional(Type.Literal('desc')),
          ...PageQuery,
        }),
        response: { 200: Answer('VerificationRunList', 'A page of runs') },
      },
    },
    async (request) => {
      const { status, createdAfter, limit = DEFAULT_LIMIT, cursor: given, includeTotal } = request.query;
      const handle = await queueOf(service, request, request.params.id);
      const filters = { id: handle.shortId, status, createdAfter };
      const cursor = readCursor<{ createdAt: number; id: string }>('mergeQueues.listVerificationRuns', filters, given);
      const query = {
        queueIds: [handle.queue.id],
        ...(status !== undefined ? { statuses: runStatusesIn(status) } : {}),
        ...(createdAfter !== undefined ? { createdAfter: Date.parse(createdAfter) } : {}),
      };
      const rows = await service.directory.runs({
        ...query,
        ...(cursor.position ? { after: cursor.position } : {}),
        limit: limit + 1,
      });
      const total = includeTotal ? (await service.directory.runs({ ...query, limit: 1_000_000 })).length : undefined;
      const page = pageOf(
        cursor,
        rows,
        limit,
        ({ run }: QueueRun) => ({ createdAt: run.createdAt, id: run.id }),
        (r) => r,
        total,
      );
      const data = await Promise.all(page.data.map(({ run }) => runOut(service, request, handle, run, false)));
      return { ...page, data };
    },
  );
};
