import { Type } from '@sinclair/typebox';
import { queueOrder } from '../../../engine/index.js';
import type { Entry } from '../../../engine/types.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../plugin.js';
import type { V2Route } from '../route.js';
import { Answer, IdParams, Query } from '../schemas.js';
import { camel } from '../wire.js';

/** At most this many targets are listed per node or edge (the totals count them all). */
const TARGETS_SHOWN = 100;

/** The targets two entries both impact; 'ALL' overlaps everything. null: no overlap. */
function common(a: Entry, b: Entry): string[] | null {
  const ta = a.impactedTargets ?? [];
  const tb = b.impactedTargets ?? [];
  if (ta === 'ALL' && tb === 'ALL') return ['ALL'];
  if (ta === 'ALL') return tb === 'ALL' ? ['ALL'] : tb.length > 0 ? [...tb] : ['ALL'];
  if (tb === 'ALL') return ta.length > 0 ? [...ta] : ['ALL'];
  const shared = ta.filter((t) => tb.includes(t));
  return shared.length > 0 ? shared : null;
}

/**
 * GET /v2/merge-queues/{id}/graph: the admitted PRs and the dependencies between them: in queue mode
 * a chain in queue order; in graph mode an edge where impacted targets overlap, transitively reduced.
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
      const nodes = queueOrder(snapshot, { includeNotReady: false });
      const graphMode = snapshot.config.mode === 'parallel';
      const depends = (i: number, j: number) => (graphMode ? common(nodes[i]!, nodes[j]!) !== null : j === i + 1);
      const edges: Edge[] = [];
      for (let j = 0; j < nodes.length; j++)
        for (let i = 0; i < j; i++) {
          if (!depends(i, j)) continue;
          // Transitive reduction: leave out i → j when a node between them depends on i and j on it.
          let indirect = false;
          for (let k = i + 1; k < j && !indirect; k++) indirect = depends(i, k) && depends(k, j);
          if (indirect) continue;
          const shared = graphMode ? common(nodes[i]!, nodes[j]!)! : [];
          edges.push({
            fromPullRequestNumber: nodes[i]!.prNumber,
            toPullRequestNumber: nodes[j]!.prNumber,
            ...(withTargets && graphMode
              ? { commonImpactedTargets: shared.slice(0, TARGETS_SHOWN), totalCommonImpactedTargets: shared.length }
              : {}),
          });
        }
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
