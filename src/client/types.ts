/**
 * Request and response types of the client, derived with `Static` from the TypeBox schemas that the
 * server validates requests with and documents in /v1/openapi.json: one source for both sides. The
 * imports are type-only, so the client loads none of the server's code at run time.
 */
import type { Static } from '@sinclair/typebox';
import type {
  ListAuditEventsRequest as AuditRequestSchema,
  ListAuditEventsResponse as AuditResponseSchema,
} from '../api/v1/schemas/audit.js';
import type { Empty, ErrorBody } from '../api/v1/schemas/common.js';
import type {
  ConcludedRequest,
  ConcludedResponse,
  ListQueuesResponse as ListQueuesSchema,
  QueueActivityResponse,
  QueueHistoryRequest as QueueHistorySchema,
  QueueHistoryResponse,
  StreamQuery,
} from '../api/v1/schemas/queue-activity.js';
import type {
  Health,
  NotifyRefsMovedRequest as NotifyRefsMovedSchema,
  NotifyRefsMovedResponse as NotifyRefsMovedResponseSchema,
  ReportStatusRequest as ReportStatusSchema,
  TestRunChanges as TestRunChangesSchema,
  TestRunChangesRequest as TestRunChangesRequestSchema,
  TestRunLogRequest as TestRunLogSchema,
} from '../api/v1/schemas/extensions.js';
import type { MetricsQuery as MetricsQuerySchema } from '../api/v1/schemas/metrics.js';
import type { CurrentToken as CurrentTokenSchema } from '../api/v1/schemas/tokens.js';
import type { PrTry, TryBuild as TryBuildSchema, TryRequest } from '../api/v1/schemas/try-builds.js';
import type {
  GetSubmittedBatchRequest,
  GetSubmittedRequest,
  ListRequest,
  ListResponse,
  PrItem,
  PrRequest,
  SetImpactedTargetsRequest as SetTargetsSchema,
  SubmitRequest,
  SubmittedBatch,
  SubmittedPr,
  TestingResults as TestingResultsSchema,
  TestingResultsRequest,
} from '../api/v1/schemas/pull-request.js';
import type {
  CreateQueueRequest as CreateQueueSchema,
  QueueRequest as QueueSchema,
  QueueResponse,
  QueueSettings as QueueSettingsSchema,
  UpdateQueueResponse as UpdateQueueResponseSchema,
  UpdateQueueRequest as UpdateQueueSchema,
} from '../api/v1/schemas/queue.js';
import type { TestingDetails as TestingDetailsSchema, TestRunRequest } from '../api/v1/schemas/testing-details.js';
import type {
  CreateWebhookRequest as CreateWebhookSchema,
  CreateWebhookResponse as CreateWebhookResponseSchema,
  Delivery,
  ListDeliveriesRequest,
  ListDeliveriesResponse,
  ListWebhooksResponse as ListWebhooksSchema,
  RedeliverRequest,
  SecretResponse,
  Webhook as WebhookSchema,
  WebhookRequest as WebhookRequestSchema,
} from '../api/v1/schemas/webhooks.js';
import type {
  Channel as ChannelSchema,
  ChannelRequest as ChannelRequestSchema,
  CreateChannelRequest as CreateChannelSchema,
  ListChannelsResponse as ListChannelsSchema,
  TestChannelResponse as TestChannelSchema,
} from '../api/v1/schemas/notifications.js';

/** `{}`: what every mutation but updateQueue answers. */
export type EmptyResponse = Static<typeof Empty>;
/** `{ error: { code, message } }`: every error the server answers. */
export type ErrorResponse = Static<typeof ErrorBody>;

export type SubmitPullRequestRequest = Static<typeof SubmitRequest>;
/** `repo`, `targetBranch` and `pr.number`: cancelPullRequest and restartTestsOnPullRequest. */
export type PullRequestRequest = Static<typeof PrRequest>;
export type GetSubmittedPullRequestRequest = Static<typeof GetSubmittedRequest>;
/** tryPullRequest: the queue, `pr.number` and `onQueue`. */
export type TryPullRequestRequest = Static<typeof TryRequest>;
/** A try build (tryPullRequest's answer). */
export type TryBuild = Static<typeof TryBuildSchema>;
/** getPullRequestTry's answer: the PR's latest try, null when none. */
export type PullRequestTry = Static<typeof PrTry>;
export type SubmittedPullRequest = Static<typeof SubmittedPr>;
export type GetSubmittedPullRequestsRequest = Static<typeof GetSubmittedBatchRequest>;
export type SubmittedPullRequests = Static<typeof SubmittedBatch>;
export type ListTestingResultsRequest = Static<typeof TestingResultsRequest>;
export type TestingResults = Static<typeof TestingResultsSchema>;
export type ListPullRequestsRequest = Static<typeof ListRequest>;
export type ListPullRequestsResponse = Static<typeof ListResponse>;
/** One PR as listPullRequests and getQueue list it. */
export type PullRequestItem = Static<typeof PrItem>;
export type SetImpactedTargetsRequest = Static<typeof SetTargetsSchema>;
export type TestingDetailsRequest = Static<typeof TestRunRequest>;
export type TestingDetails = Static<typeof TestingDetailsSchema>;

export type CreateQueueRequest = Static<typeof CreateQueueSchema>;
/** `repo` and `targetBranch`: getQueue and deleteQueue. */
export type QueueRequest = Static<typeof QueueSchema>;
export type UpdateQueueRequest = Static<typeof UpdateQueueSchema>;
/** getQueue's answer: state, settings and the enqueued PRs. */
export type Queue = Static<typeof QueueResponse>;
/** updateQueue's answer: getQueue's without enqueuedPullRequests. */
export type QueueSettings = Static<typeof QueueSettingsSchema>;
/** updateQueue's answer: the settings, and `notes` on what the change means beyond them. */
export type UpdatedQueue = Static<typeof UpdateQueueResponseSchema>;

export type MetricsQuery = Static<typeof MetricsQuerySchema>;
export type ReportStatusRequest = Static<typeof ReportStatusSchema>;
export type NotifyRefsMovedRequest = Static<typeof NotifyRefsMovedSchema>;
/** How many queues the moved refs concern were read now. */
export type NotifyRefsMovedResponse = Static<typeof NotifyRefsMovedResponseSchema>;
export type TestRunLogRequest = Static<typeof TestRunLogSchema>;
export type TestRunChangesRequest = Static<typeof TestRunChangesRequestSchema>;
/** getTestRunChanges' answer: the run's base and changed paths; nulls where not known. */
export type TestRunChanges = Static<typeof TestRunChangesSchema>;
export type HealthResponse = Static<typeof Health>;

export type CreateWebhookRequest = Static<typeof CreateWebhookSchema>;
/** The new subscription with its signing secret (shown only in this answer). */
export type CreateWebhookResponse = Static<typeof CreateWebhookResponseSchema>;
/** One webhook subscription, without its secret. */
export type Webhook = Static<typeof WebhookSchema>;
export type ListWebhooksResponse = Static<typeof ListWebhooksSchema>;
/** `{ id }`: deleteWebhook, rotateWebhookSecret and enableWebhook. */
export type WebhookRequest = Static<typeof WebhookRequestSchema>;
export type RotateWebhookSecretResponse = Static<typeof SecretResponse>;
export type ListWebhookDeliveriesRequest = Static<typeof ListDeliveriesRequest>;
export type ListWebhookDeliveriesResponse = Static<typeof ListDeliveriesResponse>;
/** One delivery (message) of a subscription, with every attempt. */
export type WebhookDelivery = Static<typeof Delivery>;
export type RedeliverWebhookRequest = Static<typeof RedeliverRequest>;
export type CreateNotificationChannelRequest = Static<typeof CreateChannelSchema>;
export type NotificationChannel = Static<typeof ChannelSchema>;
export type ListNotificationChannelsResponse = Static<typeof ListChannelsSchema>;
/** `{ id }`: deleteNotificationChannel, enableNotificationChannel and testNotificationChannel. */
export type NotificationChannelRequest = Static<typeof ChannelRequestSchema>;
export type TestNotificationChannelResponse = Static<typeof TestChannelSchema>;
/** getCurrentToken's answer: the token of the request, its scopes (with what they imply), repositories and expiry. */
export type CurrentToken = Static<typeof CurrentTokenSchema>;
/** listQueues' answer: every queue of the organization with state, mode, depth and throughput. */
export type ListQueuesResponse = Static<typeof ListQueuesSchema>;
/** getQueueActivity's answer, and the data of each streamQueueEvents event. */
export type QueueActivity = Static<typeof QueueActivityResponse>;
export type QueueHistoryRequest = Static<typeof QueueHistorySchema>;
export type QueueHistory = Static<typeof QueueHistoryResponse>;
/** listConcludedPullRequests' body: the queue, filters (states, author, from, to, search) and paging. */
export type ListConcludedPullRequestsRequest = Static<typeof ConcludedRequest>;
export type ListConcludedPullRequestsResponse = Static<typeof ConcludedResponse>;
/** One concluded PR of listConcludedPullRequests. */
export type ConcludedPullRequest = ListConcludedPullRequestsResponse['pullRequests'][number];
/** listAuditEvents' body: filters (repo, targetBranch, actor, action, from, to) and paging (cursor, take). */
export type ListAuditEventsRequest = Static<typeof AuditRequestSchema>;
export type ListAuditEventsResponse = Static<typeof AuditResponseSchema>;
/** One entry of the audit log. */
export type AuditEvent = ListAuditEventsResponse['events'][number];
/** streamQueueEvents' query: `repo` as owner/name, `repoHost`, `targetBranch`. */
export type StreamQueueEventsQuery = Static<typeof StreamQuery>;

/** The repository part of every address: `{ host, owner, name }`. */
export type RepoRef = QueueRequest['repo'];
