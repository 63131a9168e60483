/** The calls of queues (docs/api.md "Queues"), their metrics, and the CI extensions. */
import { PullRequestCalls } from './pull-request-calls.js';
import type { CallOptions } from './transport.js';
import type {
  CreateQueueRequest,
  EmptyResponse,
  MetricsQuery,
  NotifyRefsMovedRequest,
  NotifyRefsMovedResponse,
  Queue,
  QueueRequest,
  UpdatedQueue,
  ReportStatusRequest,
  TestRunChanges,
  TestRunChangesRequest,
  TestRunLogRequest,
  UpdateQueueRequest,
} from './types.js';

export class QueueCalls extends PullRequestCalls {
  createQueue(body: CreateQueueRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('createQueue', body, options);
  }

  getQueue(body: QueueRequest, options?: CallOptions): Promise<Queue> {
    return this.json('getQueue', body, options);
  }

  /** Patch semantics: omitted fields are unchanged. Answers the queue's settings after the change. */
  updateQueue(body: UpdateQueueRequest, options?: CallOptions): Promise<UpdatedQueue> {
    return this.json('updateQueue', body, options);
  }

  deleteQueue(body: QueueRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteQueue', body, options);
  }

  /** Prometheus text of the organization's queues, or of one repository's (`repo` with `repoHost`). */
  getMergeQueueMetrics(query: MetricsQuery = {}, options?: CallOptions): Promise<string> {
    return this.text('getMergeQueueMetrics', undefined, query, options);
  }

  /** Extension: external CI reports a check's state for a test run (by id or test commit sha). */
  reportStatus(body: ReportStatusRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('reportStatus', body, options);
  }

  /** Extension: what a test run (by id or test commit sha) tests against and what changed. */
  getTestRunChanges(body: TestRunChangesRequest, options?: CallOptions): Promise<TestRunChanges> {
    return this.json('getTestRunChanges', body, options);
  }

  /** Extension: a push notification, refs of a repository moved; the queues they concern are read now. */
  notifyRefsMoved(body: NotifyRefsMovedRequest, options?: CallOptions): Promise<NotifyRefsMovedResponse> {
    return this.json('notifyRefsMoved', body, options);
  }

  /** Extension: the built-in CI runner's output of a test run, as text. */
  getTestRunLog(body: TestRunLogRequest, options?: CallOptions): Promise<string> {
    return this.text('getTestRunLog', body, {}, options);
  }
}
