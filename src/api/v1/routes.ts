import type { Route } from '../route-deps.js';
import { cancelPullRequest } from './routes/cancel-pull-request.js';
import { createQueue } from './routes/create-queue.js';
import { createWebhook } from './routes/create-webhook.js';
import { createNotificationChannel } from './routes/create-notification-channel.js';
import { deleteNotificationChannel } from './routes/delete-notification-channel.js';
import { enableNotificationChannel } from './routes/enable-notification-channel.js';
import { listNotificationChannels } from './routes/list-notification-channels.js';
import { testNotificationChannel } from './routes/test-notification-channel.js';
import { deleteQueue } from './routes/delete-queue.js';
import { deleteWebhook } from './routes/delete-webhook.js';
import { enableWebhook } from './routes/enable-webhook.js';
import { getMergeQueueMetrics } from './routes/get-merge-queue-metrics.js';
import { getMergeQueueTestingDetails } from './routes/get-merge-queue-testing-details.js';
import { getCurrentToken } from './routes/get-current-token.js';
import { getQueue } from './routes/get-queue.js';
import { getQueueActivity } from './routes/get-queue-activity.js';
import { getQueueHistory } from './routes/get-queue-history.js';
import { listAuditEvents } from './routes/list-audit-events.js';
import { listConcludedPullRequests } from './routes/list-concluded-pull-requests.js';
import { getSubmittedPullRequest } from './routes/get-submitted-pull-request.js';
import { getSubmittedPullRequests } from './routes/get-submitted-pull-requests.js';
import { getTestRunLog } from './routes/get-test-run-log.js';
import { listMergeQueueTestingResults } from './routes/list-merge-queue-testing-results.js';
import { listPullRequests } from './routes/list-pull-requests.js';
import { listWebhookDeliveries } from './routes/list-webhook-deliveries.js';
import { listWebhooks } from './routes/list-webhooks.js';
import { redeliverWebhook } from './routes/redeliver-webhook.js';
import { listQueues } from './routes/list-queues.js';
import { reportStatus } from './routes/report-status.js';
import { getTestRunChanges } from './routes/get-test-run-changes.js';
import { notifyRefsMoved } from './routes/notify-refs-moved.js';
import { restartTestsOnPullRequest } from './routes/restart-tests-on-pull-request.js';
import { rotateWebhookSecret } from './routes/rotate-webhook-secret.js';
import { setImpactedTargets } from './routes/set-impacted-targets.js';
import { streamQueueEvents } from './routes/stream-queue-events.js';
import { submitPullRequest } from './routes/submit-pull-request.js';
import { updateQueue } from './routes/update-queue.js';
import { tryPullRequest } from './routes/try-pull-request.js';
import { getPullRequestTry } from './routes/get-pull-request-try.js';

/** Every endpoint under /v1 that needs a token: Trunk's v1 endpoints, then the extensions. */
export const V1_ROUTES: readonly Route[] = [
  submitPullRequest,
  cancelPullRequest,
  restartTestsOnPullRequest,
  getSubmittedPullRequest,
  getSubmittedPullRequests,
  listPullRequests,
  setImpactedTargets,
  getMergeQueueTestingDetails,
  listMergeQueueTestingResults,
  createQueue,
  getQueue,
  updateQueue,
  deleteQueue,
  getMergeQueueMetrics,
  reportStatus,
  getTestRunChanges,
  notifyRefsMoved,
  getTestRunLog,
  tryPullRequest,
  getPullRequestTry,
  createWebhook,
  listWebhooks,
  deleteWebhook,
  rotateWebhookSecret,
  enableWebhook,
  listWebhookDeliveries,
  redeliverWebhook,
  createNotificationChannel,
  listNotificationChannels,
  deleteNotificationChannel,
  enableNotificationChannel,
  testNotificationChannel,
  listQueues,
  getQueueActivity,
  getQueueHistory,
  listConcludedPullRequests,
  streamQueueEvents,
  getCurrentToken,
  listAuditEvents,
];
