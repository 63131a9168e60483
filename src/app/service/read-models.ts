/** Metrics and the dashboard's views of the org's queues, answered by the read models (extensions). */
import { listConcluded } from '../read-models/concluded-prs.js';
import { renderMetrics } from '../read-models/metrics.js';
import { listQueueSummaries, queueActivity, queueHistory } from '../read-models/queue-activity.js';
import { queueOfOrg, repoOfOrg, reposOfCaller } from '../read-models/queue-lookup.js';
import type { ReadModelService } from '../service-port.js';
import type { ServiceDeps } from './service-deps.js';

export function readModels(deps: Pick<ServiceDeps, 'db' | 'executor' | 'clock'>): ReadModelService {
  const { db, executor, clock } = deps;
  return {
    async metrics(ctx, filter) {
      const repoIds = filter.repo
        ? [(await repoOfOrg(db, ctx, filter.repo)).id]
        : ctx.repos && (await reposOfCaller(db, ctx)).map((r) => r.id);
      return renderMetrics(db, { orgId: ctx.orgId, repoIds, now: clock.now() });
    },

    listQueues: (ctx) => listQueueSummaries(db, ctx, clock.now()),

    getQueueActivity: (ctx, key) => queueActivity(db, executor, ctx, key, clock.now()),

    getQueueHistory: (ctx, key, hours) => queueHistory(db, ctx, key, hours, clock.now()),

    listConcludedPullRequests: (ctx, key, query) => listConcluded(db, ctx, key, query),

    async watchQueue(ctx, key, onChange) {
      const { queue } = await queueOfOrg(db, ctx, key);
      return executor.watch(queue.id, onChange);
    },
  };
}
