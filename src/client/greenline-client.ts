/**
 * A typed client of greenline's HTTP API over the global fetch: one method per operation, named as
 * the endpoint (see endpoints.ts), taking and returning the types of types.ts. A call resolves with
 * the answer's body or rejects with GreenlineApiError (the server refused: status and code) or
 * GreenlineNetworkError (no answer); aborting through `signal` rejects with the signal's reason.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { ENDPOINTS, type EndpointName } from './endpoints.js';
import { apiErrorOf, GreenlineApiError, networkErrorOf } from './errors.js';
import type {
  V2MergeGraph,
  V2MergeQueue,
  V2MergeQueueOrder,
  V2Page,
  V2PullRequest,
  V2Repository,
  V2StateTransition,
} from './v2-types.js';
import type {
  GetSubmittedPullRequestsRequest,
  ListTestingResultsRequest,
  SubmittedPullRequests,
  TestingResults,
  CreateQueueRequest,
  EmptyResponse,
  GetSubmittedPullRequestRequest,
  HealthResponse,
  ListPullRequestsRequest,
  ListPullRequestsResponse,
  MetricsQuery,
  PullRequestRequest,
  Queue,
  QueueRequest,
  QueueSettings,
  ReportStatusRequest,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
  TestingDetails,
  TestingDetailsRequest,
  TestRunLogRequest,
  UpdateQueueRequest,
  CreateWebhookRequest,
  CreateWebhookResponse,
  ListWebhooksResponse,
  WebhookRequest,
  RotateWebhookSecretResponse,
  ListWebhookDeliveriesRequest,
  ListWebhookDeliveriesResponse,
  RedeliverWebhookRequest,
  CreateNotificationChannelRequest,
  NotificationChannel,
  ListNotificationChannelsResponse,
  NotificationChannelRequest,
  TestNotificationChannelResponse,
  ListQueuesResponse,
  QueueActivity,
  QueueHistory,
  QueueHistoryRequest,
  ListConcludedPullRequestsRequest,
  ListConcludedPullRequestsResponse,
  StreamQueueEventsQuery,
} from './types.js';

export interface GreenlineClientOptions {
  /**
   * Where the server is, e.g. `http://127.0.0.1:8080`. A trailing `/v1` (how Trunk's clients write
   * their base URL) is accepted and dropped.
   */
  url: string;
  /** The organization's API token, sent as `x-api-token`. Only healthz works without one. */
  token?: string;
  /** A request without an answer after this many milliseconds fails with reason TIMEOUT; default 30 000. */
  timeoutMs?: number;
  /** The fetch to call; default the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export class GreenlineClient {
  /** The server's address without a trailing slash or `/v1`. */
  readonly url: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: GreenlineClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new TypeError(`Invalid greenline URL ${JSON.stringify(options.url)}: expected e.g. http://127.0.0.1:8080`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(
        `Invalid greenline URL ${JSON.stringify(options.url)}: only http:// and https:// are supported`,
      );
    }
    this.url = parsed.href.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  // Pull requests (docs/api.md "Pull requests").

  /** Submits a PR, or updates the priority and noBatch of one already in the queue. */
  submitPullRequest(body: SubmitPullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('submitPullRequest', body, options);
  }

  /** @deprecated Trunk's older name of submitPullRequest; same body and answer. */
  queuePullRequest(body: SubmitPullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('queuePullRequest', body, options);
  }

  cancelPullRequest(body: PullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('cancelPullRequest', body, options);
  }

  restartTestsOnPullRequest(body: PullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('restartTestsOnPullRequest', body, options);
  }

  getSubmittedPullRequest(body: GetSubmittedPullRequestRequest, options?: CallOptions): Promise<SubmittedPullRequest> {
    return this.json('getSubmittedPullRequest', body, options);
  }

  /** Up to 50 PRs at once; the numbers never submitted are in `notFound`. */
  getSubmittedPullRequests(
    body: GetSubmittedPullRequestsRequest,
    options?: CallOptions,
  ): Promise<SubmittedPullRequests> {
    return this.json('getSubmittedPullRequests', body, options);
  }

  listPullRequests(body: ListPullRequestsRequest, options?: CallOptions): Promise<ListPullRequestsResponse> {
    return this.json('listPullRequests', body, options);
  }

  setImpactedTargets(body: SetImpactedTargetsRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('setImpactedTargets', body, options);
  }

  getMergeQueueTestingDetails(body: TestingDetailsRequest, options?: CallOptions): Promise<TestingDetails> {
    return this.json('getMergeQueueTestingDetails', body, options);
  }

  /** Finished testing per PR and run, newest first, paged with offset/take. */
  listMergeQueueTestingResults(body: ListTestingResultsRequest, options?: CallOptions): Promise<TestingResults> {
    return this.json('listMergeQueueTestingResults', body, options);
  }

  // Queues (docs/api.md "Queues").

  createQueue(body: CreateQueueRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('createQueue', body, options);
  }

  getQueue(body: QueueRequest, options?: CallOptions): Promise<Queue> {
    return this.json('getQueue', body, options);
  }

  /** Patch semantics: omitted fields are unchanged. Answers the queue's settings after the change. */
  updateQueue(body: UpdateQueueRequest, options?: CallOptions): Promise<QueueSettings> {
    return this.json('updateQueue', body, options);
  }

  deleteQueue(body: QueueRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteQueue', body, options);
  }

  // Metrics and extensions.

  /** Prometheus text of the organization's queues, or of one repository's (`repo` with `repoHost`). */
  getMergeQueueMetrics(query: MetricsQuery = {}, options?: CallOptions): Promise<string> {
    return this.text('getMergeQueueMetrics', undefined, query, options);
  }

  /** Extension: external CI reports a check's state for a test run (by id or test commit sha). */
  reportStatus(body: ReportStatusRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('reportStatus', body, options);
  }

  /** Extension: the built-in CI runner's output of a test run, as text. */
  getTestRunLog(body: TestRunLogRequest, options?: CallOptions): Promise<string> {
    return this.text('getTestRunLog', body, {}, options);
  }

  // Webhooks (docs/webhooks.md).

  /** Subscribes a URL to the organization's queue events; the answer holds the secret, shown only this once. */
  createWebhook(body: CreateWebhookRequest, options?: CallOptions): Promise<CreateWebhookResponse> {
    return this.json('createWebhook', body, options);
  }

  /** The organization's subscriptions, without secrets. */
  listWebhooks(options?: CallOptions): Promise<ListWebhooksResponse> {
    return this.json('listWebhooks', {}, options);
  }

  deleteWebhook(body: WebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteWebhook', body, options);
  }

  /** A new signing secret, shown only this once; the old one stops working at once. */
  rotateWebhookSecret(body: WebhookRequest, options?: CallOptions): Promise<RotateWebhookSecretResponse> {
    return this.json('rotateWebhookSecret', body, options);
  }

  /** Enables a subscription disabled after 5 days of failures. */
  enableWebhook(body: WebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('enableWebhook', body, options);
  }

  /** A subscription's latest deliveries, newest first, with every attempt. */
  listWebhookDeliveries(
    body: ListWebhookDeliveriesRequest,
    options?: CallOptions,
  ): Promise<ListWebhookDeliveriesResponse> {
    return this.json('listWebhookDeliveries', body, options);
  }

  /** Sends a delivery again with the same webhook-id and body. */
  redeliverWebhook(body: RedeliverWebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('redeliverWebhook', body, options);
  }

  // Chat notifications (docs/notifications.md).

  /** Sends the organization's queue events, in words, to a Slack, Teams or chat webhook. */
  createNotificationChannel(
    body: CreateNotificationChannelRequest,
    options?: CallOptions,
  ): Promise<NotificationChannel> {
    return this.json('createNotificationChannel', body, options);
  }

  /** The organization's channels, each with how its latest message went. */
  listNotificationChannels(options?: CallOptions): Promise<ListNotificationChannelsResponse> {
    return this.json('listNotificationChannels', {}, options);
  }

  deleteNotificationChannel(body: NotificationChannelRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteNotificationChannel', body, options);
  }

  /** Enables a channel disabled after 3 days of failures. */
  enableNotificationChannel(body: NotificationChannelRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('enableNotificationChannel', body, options);
  }

  /** Sends a test message now; answers whether the chat accepted it. */
  testNotificationChannel(
    body: NotificationChannelRequest,
    options?: CallOptions,
  ): Promise<TestNotificationChannelResponse> {
    return this.json('testNotificationChannel', body, options);
  }

  // Dashboard extensions (docs/dashboard.md).

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
    const url = new URL(this.url + ENDPOINTS.streamQueueEvents.path);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.token !== undefined) headers['x-api-token'] = this.token;
    let res: Response;
    try {
      res = await this.fetch(url, { headers, ...(options?.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      if (options?.signal?.aborted) throw options.signal.reason;
      throw networkErrorOf(url.href, err, this.timeoutMs);
    }
    if (!res.ok) throw apiErrorOf(res.status, res.statusText, await res.text());
    const reader = res
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        if (value.event === 'activity' && value.data) yield JSON.parse(value.data) as QueueActivity;
      }
    } finally {
      reader.releaseLock();
      await res.body!.cancel().catch(() => undefined);
    }
  }

  /** Extension: liveness; needs no token. */
  healthz(options?: CallOptions): Promise<HealthResponse> {
    return this.json('healthz', undefined, options);
  }

  // Trunk's v2 API (docs/api-v2.md): what v1 has no operation for, and the ids it takes.

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

  private async v2<T>(
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    options: CallOptions | undefined,
  ): Promise<T> {
    const url = new URL(this.url + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = this.token === undefined ? {} : { authorization: `Bearer ${this.token}` };
    const { status, text } = await this.fetchText(url, { method: 'GET', headers }, options);
    return this.parsed<T>(status, text, path);
  }

  private async json<T>(name: EndpointName, body: unknown, options: CallOptions | undefined): Promise<T> {
    const { status, text } = await this.send(name, body, {}, options);
    return this.parsed<T>(status, text, name);
  }

  private parsed<T>(status: number, text: string, name: string): T {
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new GreenlineApiError(
        status,
        'UNEXPECTED_RESPONSE',
        `The answer of ${name} is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }

  private async text(
    name: EndpointName,
    body: unknown,
    query: Record<string, string | undefined>,
    options: CallOptions | undefined,
  ): Promise<string> {
    return (await this.send(name, body, query, options)).text;
  }

  private async send(
    name: EndpointName,
    body: unknown,
    query: Record<string, string | undefined>,
    options: CallOptions | undefined,
  ): Promise<{ status: number; text: string }> {
    const { method, path } = ENDPOINTS[name];
    const url = new URL(this.url + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers['x-api-token'] = this.token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.fetchText(
      url,
      { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      options,
    );
  }

  private async fetchText(
    url: URL,
    init: { method: string; headers: Record<string, string>; body?: string },
    options: CallOptions | undefined,
  ): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const res = await this.fetch(url, { ...init, signal });
      const text = await res.text();
      if (!res.ok) throw apiErrorOf(res.status, res.statusText, text);
      return { status: res.status, text };
    } catch (err) {
      if (err instanceof GreenlineApiError) throw err;
      if (options?.signal?.aborted) throw options.signal.reason;
      throw networkErrorOf(url.href, err, this.timeoutMs);
    }
  }
}
