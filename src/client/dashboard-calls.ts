/** The dashboard's extensions (docs/dashboard.md), and the server's liveness. */
import { SubscriptionCalls } from './subscription-calls.js';
import type { CallOptions } from './transport.js';
import type {
  CurrentToken,
  HealthResponse,
  ListAuditEventsRequest,
  ListAuditEventsResponse,
  ListConcludedPullRequestsRequest,
  ListConcludedPullRequestsResponse,
  ListQueuesResponse,
  QueueActivity,
  QueueHistory,
  QueueHistoryRequest,
  QueueRequest,
  StreamQueueEventsQuery,
} from './types.js';

export class DashboardCalls extends SubscriptionCalls {
  /** Extension: every queue of the organization with state, mode, depth and the last hour's conclusions. */
  listQueues(options?: CallOptions): Promise<ListQueuesResponse> {
    return this.json('listQueues', {}, options);
  }

  /** Extension: PRs in queue order, test runs in flight with the PRs they include, recent conclusions. */
  getQueueActivity(body: QueueRequest, options?: CallOptions): Promise<QueueActivity> {
    return this.json('getQueueActivity', body, options);
  }

  /** Extension: conclusions, time in queue and CI runs per merge by clock hour. */
  getQueueHistory(body: QueueHistoryRequest, options?: CallOptions): Promise<QueueHistory> {
    return this.json('getQueueHistory', body, options);
  }

  /** Extension: the queue's concluded PRs, newest first, filtered, a page at a time (`nextCursor`). */
  listConcludedPullRequests(
    body: ListConcludedPullRequestsRequest,
    options?: CallOptions,
  ): Promise<ListConcludedPullRequestsResponse> {
    return this.json('listConcludedPullRequests', body, options);
  }

  /**
   * Extension: the queue's activity as it changes (server-sent events): the current activity first,
   * then one per change, until `signal` aborts (no timeout applies to the stream once it is open).
   */
  async *streamQueueEvents(query: StreamQueueEventsQuery, options?: CallOptions): AsyncGenerator<QueueActivity> {
    for await (const message of this.events('streamQueueEvents', query, options)) {
      if (message.event === 'activity' && message.data) yield JSON.parse(message.data) as QueueActivity;
    }
  }

  /** Extension: the token of the calls, with its scopes, repositories and expiry (what it may do). */
  getCurrentToken(options?: CallOptions): Promise<CurrentToken> {
    return this.json('getCurrentToken', {}, options);
  }

  /** Extension: the organization's audit log, newest first, filtered, a page at a time (`nextCursor`); needs `admin` or `audit:read`. */
  listAuditEvents(body: ListAuditEventsRequest = {}, options?: CallOptions): Promise<ListAuditEventsResponse> {
    return this.json('listAuditEvents', body, options);
  }

  /** Extension: liveness; needs no token. */
  healthz(options?: CallOptions): Promise<HealthResponse> {
    return this.json('healthz', undefined, options);
  }
}
