/** Trunk's v2 API (docs/api-v2.md): what v1 has no operation for, and the ids it takes. */
import { DashboardCalls } from './dashboard-calls.js';
import type { CallOptions } from './transport.js';
import type {
  V2MergeGraph,
  V2MergeQueue,
  V2MergeQueueOrder,
  V2Page,
  V2PullRequest,
  V2Repository,
  V2StateTransition,
} from './v2-types.js';

export class V2Calls extends DashboardCalls {
  /** v2: the connected repository at a provider URL (`https://github.com/acme/web`). */
  async repositoryAt(providerUrl: string, options?: CallOptions): Promise<V2Repository> {
    const page = await this.v2<V2Page<V2Repository>>('/v2/repositories', { providerUrl }, options);
    return page.data[0]!;
  }

  /** v2: the organization's queues, of one repository (and branch) when given. */
  mergeQueues(
    query: { repositoryId?: string; targetBranch?: string; limit?: number; cursor?: string } = {},
    options?: CallOptions,
  ): Promise<V2Page<V2MergeQueue>> {
    return this.v2('/v2/merge-queues', query, options);
  }

  /** v2: a queue's dispatch order: batches with a run, then admitted PRs, then those awaiting admission. */
  mergeQueueOrder(queueId: string, options?: CallOptions): Promise<V2MergeQueueOrder> {
    return this.v2(`/v2/merge-queues/${encodeURIComponent(queueId)}/order`, {}, options);
  }

  /** v2: a queue's dependency graph. */
  mergeQueueGraph(
    queueId: string,
    query: { includeImpactedTargets?: boolean } = {},
    options?: CallOptions,
  ): Promise<V2MergeGraph> {
    return this.v2(`/v2/merge-queues/${encodeURIComponent(queueId)}/graph`, query, options);
  }

  /** v2: a repository's PRs by number (up to 50), submitted or not. */
  pullRequestsByNumber(repositoryId: string, numbers: number[], options?: CallOptions): Promise<V2Page<V2PullRequest>> {
    return this.v2('/v2/pull-requests', { repositoryId, number: numbers.join(',') }, options);
  }

  /** v2: a PR's queue-entry state transitions, oldest first (or newest with `direction: 'newest'`). */
  queueEntryHistory(
    pullRequestId: string,
    query: { direction?: 'oldest' | 'newest'; limit?: number; cursor?: string } = {},
    options?: CallOptions,
  ): Promise<V2Page<V2StateTransition>> {
    return this.v2(`/v2/pull-requests/${encodeURIComponent(pullRequestId)}/queue-entry-history`, query, options);
  }
}
