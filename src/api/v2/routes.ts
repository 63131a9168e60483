import type { V2Route } from './route.js';
import { batchHistory } from './routes/batch-history.js';
import { createMergeQueue } from './routes/create-merge-queue.js';
import { deleteMergeQueue } from './routes/delete-merge-queue.js';
import { dequeuePullRequest } from './routes/dequeue-pull-request.js';
import { drainMergeQueue } from './routes/drain-merge-queue.js';
import { getMergeQueue } from './routes/get-merge-queue.js';
import { getPullRequest } from './routes/get-pull-request.js';
import { getRepository } from './routes/get-repository.js';
import { getVerificationRun } from './routes/get-verification-run.js';
import { listMergeQueues } from './routes/list-merge-queues.js';
import { listPullRequestVerificationRuns } from './routes/list-pull-request-verification-runs.js';
import { listQueuePullRequests } from './routes/list-queue-pull-requests.js';
import { listQueueVerificationRuns } from './routes/list-queue-verification-runs.js';
import { listTestingResults } from './routes/list-testing-results.js';
import { mergeQueueGraph } from './routes/merge-queue-graph.js';
import { mergeQueueMetrics } from './routes/merge-queue-metrics.js';
import { mergeQueueOrder } from './routes/merge-queue-order.js';
import { organizationMetrics } from './routes/organization-metrics.js';
import { pauseMergeQueue } from './routes/pause-merge-queue.js';
import { pullRequestHistory } from './routes/pull-request-history.js';
import { reprioritizePullRequest } from './routes/reprioritize-pull-request.js';
import { resolvePullRequests } from './routes/resolve-pull-requests.js';
import { resolveRepositories } from './routes/resolve-repositories.js';
import { restartTests } from './routes/restart-tests.js';
import { resumeMergeQueue } from './routes/resume-merge-queue.js';
import { submitPullRequest } from './routes/submit-pull-request.js';
import { switchModes } from './routes/switch-modes.js';
import { updateMergeQueueConfig } from './routes/update-merge-queue-config.js';
import { updateQueueEntry } from './routes/update-queue-entry.js';
import { uploadImpactedTargets } from './routes/upload-impacted-targets.js';

/** The 30 operations of Trunk's v2 merge-queue API (docs/api-v2.md), in the order of its document. */
export const V2_ROUTES: readonly V2Route[] = [
  listMergeQueues,
  createMergeQueue,
  organizationMetrics,
  mergeQueueMetrics,
  getMergeQueue,
  deleteMergeQueue,
  mergeQueueOrder,
  mergeQueueGraph,
  listTestingResults,
  submitPullRequest,
  listQueuePullRequests,
  switchModes,
  pauseMergeQueue,
  resumeMergeQueue,
  drainMergeQueue,
  updateMergeQueueConfig,
  uploadImpactedTargets,
  getVerificationRun,
  listQueueVerificationRuns,
  listPullRequestVerificationRuns,
  pullRequestHistory,
  batchHistory,
  resolvePullRequests,
  getPullRequest,
  reprioritizePullRequest,
  updateQueueEntry,
  dequeuePullRequest,
  restartTests,
  resolveRepositories,
  getRepository,
];
