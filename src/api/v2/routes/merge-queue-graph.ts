import { Type } from '@sinclair/typebox';
import { dependencyGraph, sharedTargets } from '../../../engine/index.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, IdParams, Query } from '../schemas.js';
import { camel } from '../wire.js';

/** At most this many targets are listed per node or edge (the totals count them all). */
const TARGETS_SHOWN = 100;

/**
 * GET /v2/merge-queues/{id}/graph: the admitted PRs and the dependencies between them, as the engine
 * has them (engine/topology.ts dependencyGraph): in queue mode a chain in queue order; in graph mode an
 * edge where impacted targets overlap, transitively reduced.
 */
/** An edge of the graph: `to` is tested on top of `from`. */
interface Edge {
  fromPullRequestNumber: number;
  toPullRequestNumber: number;
  commonImpactedTargets?: string[];
  totalCommonImpactedTargets?: number;
}

export const mergeQueueGraph: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/graph',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "A merge queue's dependency graph",
        tags: ['Merge queues'],
        params: IdParams,
        querystring: Query({ includeImpactedTargets: Type.Optional(Type.Boolean()) }),
        response: { 200: Answer('MergeGraph', 'The graph') },
      },
    },
    async (request) => {
      const withTargets = request.query.includeImpactedTargets === true;
      const handle = await queueOf(service, request, request.params.id);
      const { snapshot } = await service.getQueue(callerOf(request), handle.key);
      const { order: nodes, directlyAhead } = dependencyGraph(snapshot);
      const graphMode = snapshot.config.mode === 'parallel';
      const edges: Edge[] = nodes.flatMap((to, j) =>
        directlyAhead[j]!.map((from) => {
          const shared = graphMode ? (sharedTargets(from.impactedTargets, to.impactedTargets) ?? []) : [];
          return {
            fromPullRequestNumber: from.prNumber,
            toPullRequestNumber: to.prNumber,
            ...(withTargets && graphMode
              ? { commonImpactedTargets: shared.slice(0, TARGETS_SHOWN), totalCommonImpactedTargets: shared.length }
              : {}),
          };
        }),
      );
      const runs = new Map(snapshot.runs.map((r) => [r.id, r]));
      return {
        nodes: nodes.map((e) => {
          const run = e.runId ? runs.get(e.runId) : undefined;
          const targets = e.impactedTargets === 'ALL' ? ['ALL'] : [...(e.impactedTargets ?? [])];
          return {
            pullRequestNumber: e.prNumber,
            title: e.title,
            author: e.author,
            state: camel(e.state),
            priorityValue: e.priorityValue,
            priorityName: e.priorityName,
            skipsTheLine: e.priorityValue === 0,
            allowsBatching: !e.noBatch,
            ...(e.state === 'TESTING' && e.runId ? { verificationRunId: e.runId } : {}),
            isBisection: run?.queueType === 'bisection',
            ...(withTargets
              ? { impactedTargets: targets.slice(0, TARGETS_SHOWN), totalImpactedTargets: targets.length }
              : {}),
          };
        }),
        edges,
      };
    },
  );
};
