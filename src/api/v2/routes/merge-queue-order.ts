import { dependencyGraph, queueOrder } from '../../../engine/index.js';
import type { Entry } from '../../../engine/types.js';
import { prUrlField } from '../../../forges.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, IdParams } from '../schemas.js';
import { camel, modeOut } from '../wire.js';

/** At most this many PRs awaiting admission are listed (awaitingAdmissionTotal counts them all). */
const AWAITING_SHOWN = 100;

/**
 * GET /v2/merge-queues/{id}/order: the dispatch order: batches with a run, then admitted PRs in the
 * order the engine considers them, each with the PRs directly ahead of it in the engine's dependency
 * graph (the graph operation's edges into it), then PRs awaiting admission (not ready).
 */
export const mergeQueueOrder: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/:id/order',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: "A merge queue's dispatch order",
        tags: ['Merge queues'],
        params: IdParams,
        response: { 200: Answer('MergeQueueOrder', 'The order') },
      },
    },
    async (request) => {
      const handle = await queueOf(service, request, request.params.id);
      const { snapshot } = await service.getQueue(callerOf(request), handle.key);
      const order = queueOrder(snapshot);
      const ids = await service.directory.pullRequestIds(
        handle.repo,
        order.map((e) => e.prNumber),
      );
      const ref = (e: Entry) => ({
        id: ids.get(e.prNumber)!,
        number: e.prNumber,
        sha: e.headSha,
        title: e.title,
        ...prUrlField(handle.repo, e.prNumber),
      });
      const byNumber = new Map(order.map((e) => [e.prNumber, e]));
      const graph = dependencyGraph(snapshot);
      const ahead = new Map(graph.order.map((e, i) => [e.prNumber, graph.directlyAhead[i]!]));
      const inRun = new Set<number>();
      const batches = snapshot.runs
        .filter((r) => r.status === 'creating' || r.status === 'in_progress' || r.status === 'succeeded')
        .filter((r) => r.prNumbers.some((n) => byNumber.has(n)))
        .map((r) => {
          const prs = r.prNumbers.map((n) => byNumber.get(n)).filter((e): e is Entry => e !== undefined);
          for (const e of prs) inRun.add(e.prNumber);
          return {
            verificationRunId: r.id,
            state: camel(prs[0]!.state),
            isBisection: r.queueType === 'bisection',
            pullRequests: prs.map(ref),
          };
        });
      const failing = order.filter((e) => e.state === 'PENDING_FAILURE' || e.state === 'FAILED');
      const pending = order
        .filter((e) => e.state !== 'NOT_READY' && !inRun.has(e.prNumber))
        .map((e, i) => {
          const held = e.state === 'PENDING_FAILURE';
          return {
            pullRequest: ref(e),
            schedulability: held ? 'heldBehindFailure' : 'schedulable',
            ...(held ? {} : { predictedBatch: snapshot.config.batch ? 1 : i + 1 }),
            directlyAhead: (ahead.get(e.prNumber) ?? []).map(ref),
            heldBy: held ? failing.filter((f) => f !== e).map(ref) : [],
          };
        });
      const awaiting = order.filter((e) => e.state === 'NOT_READY');
      return {
        mode: modeOut(snapshot.config.mode),
        queueState: camel(snapshot.state),
        batchingEnabled: snapshot.config.batch,
        // No batching rules (docs/api-v2.md): no isolation is left unresolved.
        isolationResolved: true,
        // The engine's dependencies run from earlier to later positions of one order: never a cycle.
        hasCycle: false,
        batches,
        pending,
        awaitingAdmission: awaiting.slice(0, AWAITING_SHOWN).map(ref),
        awaitingAdmissionTotal: awaiting.length,
      };
    },
  );
};
