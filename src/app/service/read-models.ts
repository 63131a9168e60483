/** Metrics and the dashboard's views of the org's queues, answered by the read models (extensions). */
import { listConcluded } from '../read-models/concluded-prs.js';
import { renderMetrics } from '../read-models/metrics.js';
import { listQueueSummaries, queueActivity, queueHistory } from '../read-models/queue-activity.js';
import { queueOfOrg, repoOfOrg, reposOfCaller } from '../request-scope.js';
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

    listQueues: async (ctx) => listQueueSummaries(db, await reposOfCaller(db, ctx), clock.now()),

    getQueueActivity: async (ctx, key) => queueActivity(db, executor, await queueOfOrg(db, ctx, key), clock.now()),

    getQueueHistory: async (ctx, key, hours) =>
      queueHistory(db, (await queueOfOrg(db, ctx, key)).queue, hours, clock.now()),

    listConcludedPullRequests: async (ctx, key, query) =>
      listConcluded(db, (await queueOfOrg(db, ctx, key)).queue, query),

    async watchQueue(ctx, key, onChange) {
      const { queue } = await queueOfOrg(db, ctx, key);
      return executor.watch(queue.id, onChange);
    },
  };
}
