import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { IdParams } from '../schemas.js';
import { PROMETHEUS } from './organization-metrics.js';

/** GET /v2/merge-queues/{id}/metrics: Prometheus text of one queue (the series of its branch). */
export const mergeQueueMetrics: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/metrics',
    {
      config: { metrics: true, scopes: ['read'] },
      schema: { summary: 'Prometheus metrics of one merge queue', tags: ['Metrics'], params: IdParams },
    },
    async (request, reply) => {
      const handle = await queueOf(service, request, request.params.id);
      const text = await service.metrics(callerOf(request), { repo: handle.key.repo });
      // The repository's text, kept to this queue's series (and the HELP/TYPE lines).
      const branch = `branch="${handle.key.targetBranch}"`;
      const kept = text.split('\n').filter((line) => line.startsWith('#') || line === '' || line.includes(branch));
      return reply.type(PROMETHEUS).send(kept.join('\n'));
    },
  );
};
