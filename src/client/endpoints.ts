/**
 * Every operation of the HTTP API, by name: Trunk's v1 endpoints, the legacy queuePullRequest, and
 * greenline's extensions (docs/api.md). The method name of the client is the last path segment;
 * test/client/sdk-openapi.test.ts checks this table against the server's /v1/openapi.json in both
 * directions.
 */
export const ENDPOINTS = {
  submitPullRequest: { method: 'POST', path: '/v1/submitPullRequest' },
  queuePullRequest: { method: 'POST', path: '/v1/queuePullRequest' },
  cancelPullRequest: { method: 'POST', path: '/v1/cancelPullRequest' },
  restartTestsOnPullRequest: { method: 'POST', path: '/v1/restartTestsOnPullRequest' },
  getSubmittedPullRequest: { method: 'POST', path: '/v1/getSubmittedPullRequest' },
  getSubmittedPullRequests: { method: 'POST', path: '/v1/getSubmittedPullRequests' },
  listPullRequests: { method: 'POST', path: '/v1/listPullRequests' },
  setImpactedTargets: { method: 'POST', path: '/v1/setImpactedTargets' },
  getMergeQueueTestingDetails: { method: 'POST', path: '/v1/getMergeQueueTestingDetails' },
  listMergeQueueTestingResults: { method: 'POST', path: '/v1/listMergeQueueTestingResults' },
  createQueue: { method: 'POST', path: '/v1/createQueue' },
  getQueue: { method: 'POST', path: '/v1/getQueue' },
  updateQueue: { method: 'POST', path: '/v1/updateQueue' },
  deleteQueue: { method: 'POST', path: '/v1/deleteQueue' },
  getMergeQueueMetrics: { method: 'GET', path: '/v1/getMergeQueueMetrics' },
  reportStatus: { method: 'POST', path: '/v1/reportStatus' },
  getTestRunChanges: { method: 'POST', path: '/v1/getTestRunChanges' },
  tryPullRequest: { method: 'POST', path: '/v1/tryPullRequest' },
  getPullRequestTry: { method: 'POST', path: '/v1/getPullRequestTry' },
  notifyRefsMoved: { method: 'POST', path: '/v1/notifyRefsMoved' },
  getTestRunLog: { method: 'POST', path: '/v1/getTestRunLog' },
  createWebhook: { method: 'POST', path: '/v1/createWebhook' },
  listWebhooks: { method: 'POST', path: '/v1/listWebhooks' },
  deleteWebhook: { method: 'POST', path: '/v1/deleteWebhook' },
  rotateWebhookSecret: { method: 'POST', path: '/v1/rotateWebhookSecret' },
  enableWebhook: { method: 'POST', path: '/v1/enableWebhook' },
  listWebhookDeliveries: { method: 'POST', path: '/v1/listWebhookDeliveries' },
  redeliverWebhook: { method: 'POST', path: '/v1/redeliverWebhook' },
  createNotificationChannel: { method: 'POST', path: '/v1/createNotificationChannel' },
  listNotificationChannels: { method: 'POST', path: '/v1/listNotificationChannels' },
  deleteNotificationChannel: { method: 'POST', path: '/v1/deleteNotificationChannel' },
  enableNotificationChannel: { method: 'POST', path: '/v1/enableNotificationChannel' },
  testNotificationChannel: { method: 'POST', path: '/v1/testNotificationChannel' },
  listQueues: { method: 'POST', path: '/v1/listQueues' },
  getQueueActivity: { method: 'POST', path: '/v1/getQueueActivity' },
  getQueueHistory: { method: 'POST', path: '/v1/getQueueHistory' },
  listConcludedPullRequests: { method: 'POST', path: '/v1/listConcludedPullRequests' },
  streamQueueEvents: { method: 'GET', path: '/v1/streamQueueEvents' },
  getCurrentToken: { method: 'POST', path: '/v1/getCurrentToken' },
  listAuditEvents: { method: 'POST', path: '/v1/listAuditEvents' },
  healthz: { method: 'GET', path: '/healthz' },
} as const satisfies Record<string, { method: 'GET' | 'POST'; path: string }>;

export type EndpointName = keyof typeof ENDPOINTS;
