import { authOf } from '../../auth.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { TestingResults, TestingResultsRequest } from '../schemas/pull-request.js';
import { iso } from '../../../lib/time.js';
import { stateOut } from '../wire.js';

/**
 * POST /v1/listMergeQueueTestingResults (Trunk's migration guide; schema unpublished): finished
 * stretches of testing, one per PR per finished run, newest first, paged with offset/take.
 */
export const listMergeQueueTestingResults: Route = (app, { service, enumCase }) => {
  app.post(
    '/listMergeQueueTestingResults',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "List a queue's finished testing results",
        tags: ['Queues'],
        body: TestingResultsRequest,
        response: replies(TestingResults),
      },
    },
    async (request) => {
      const { since, until, offset = 0, take = 25 } = request.body;
      const spelling = enumCase(request.headers);
      const all = await service.directory.testingResults(
        authOf(request),
        queueKey(request.body),
        since === undefined ? 0 : Date.parse(since),
        until === undefined ? service.directory.now() : Date.parse(until),
      );
      return {
        testingResults: all.slice(offset, offset + take).map((r) => ({
          prNumber: r.prNumber,
          testRunId: r.runId,
          endedAt: iso(r.endedAt),
          testingDurationMs: r.durationMs,
          outcome: r.outcome,
          cycleConclusion: r.conclusion === null ? null : stateOut(r.conclusion, spelling),
          bisection: r.isBisection ? 'in_bisection' : r.startedBisection ? 'entered_bisection' : null,
        })),
        totalItems: all.length,
      };
    },
  );
};
