import { Type } from '@sinclair/typebox';
import type { ReadModelService } from '../../../app/service-port.js';
import { ServiceError } from '../../../lib/errors.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { ErrorBody } from '../schemas/common.js';
import { MetricsQuery } from '../schemas/metrics.js';

/** Prometheus text exposition format 0.0.4, exactly as contract §2.12 gives it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /v1/getMergeQueueMetrics (contract §2.12, metrics §7): the organization's queues, or one
 * repository's with `repo=owner/name&repoHost=github.com`. repoHost is required with repo, as the
 * spec says (an older Trunk draft defaulted it; greenline does not guess the host).
 */
export const getMergeQueueMetrics: Route<ReadModelService> = (app, { service }) => {
  app.get(
    '/getMergeQueueMetrics',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get queue metrics in Prometheus text format',
        tags: ['Metrics'],
        querystring: MetricsQuery,
        response: {
          200: { description: 'Prometheus text', content: { [METRICS_CONTENT_TYPE]: { schema: Type.String() } } },
          default: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { repo, repoHost } = request.query;
      if (repo !== undefined && repoHost === undefined) {
        throw new ServiceError(
          'VALIDATION_FAILED',
          'querystring/repoHost is required with repo (e.g. repoHost=github.com)',
        );
      }
      const filter =
        repo === undefined
          ? {}
          : {
              repo: { host: repoHost as string, owner: repo.split('/')[0], name: repo.split('/')[1] },
            };
      const text = await service.metrics(authOf(request), filter);
      return reply.type(METRICS_CONTENT_TYPE).send(text);
    },
  );
};
