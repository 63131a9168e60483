/**
 * The MergeQueueService (src/app/service-port.ts), following contract §2 endpoint by endpoint: the
 * areas of this folder, each a plain object of its methods, over the collaborators the composition
 * root built (src/app/create-app.ts). Every state change goes through the engine.
 *
 *   queue-lifecycle.ts     createQueue, deleteQueue
 *   queue-settings.ts      getQueue, updateQueue
 *   pull-requests.ts       submitPullRequest, cancelPullRequest, restartTestsOnPullRequest
 *   pull-request-reads.ts  getSubmittedPullRequest, listPullRequests
 *   impacted-targets.ts    setImpactedTargets, setImpactedTargetsFromFork
 *   test-runs.ts           getTestingDetails, reportStatus, getTestRunLog
 *   read-models.ts         metrics and the dashboard's views
 *   refs-moved.ts          notifyRefsMoved
 *   try-builds.ts          tryPullRequest, getPullRequestTry
 *   directory.ts           the v2 API's lookups by id, within the caller's org
 * and the audit log's reads (src/audit/audit-read.ts).
 */
import { readAuditLog } from '../../audit/audit-read.js';
import type { AuthService, MergeQueueService } from '../service-port.js';
import { callerDirectory } from './directory.js';
import { impactedTargets } from './impacted-targets.js';
import { pullRequestReads } from './pull-request-reads.js';
import { pullRequestCommands } from './pull-requests.js';
import { queueLifecycle } from './queue-lifecycle.js';
import { queueSettings } from './queue-settings.js';
import { readModels } from './read-models.js';
import { refsNotices, type RefsMovedDeps } from './refs-moved.js';
import type { ServiceDeps } from './service-deps.js';
import { testRuns } from './test-runs.js';
import { tryBuildsService } from './try-builds.js';
import type { TryBuilds } from '../try-builds.js';

/** The areas' collaborators, and those the service hands out as they are (webhooks, notifications). */
export interface MergeQueueServiceDeps
  extends ServiceDeps,
    Pick<RefsMovedDeps, 'readQueues'>,
    Pick<MergeQueueService, 'webhooks' | 'notifications'> {
  /** Resolves API tokens to their callers (admin/tokens.ts). */
  auth: AuthService;
  /** Try builds; null when the server runs no CI for them. */
  tries: TryBuilds | null;
}

export function mergeQueueService(deps: MergeQueueServiceDeps): MergeQueueService {
  // The areas are object literals: their methods are own properties, so spreading them keeps them all.
  return {
    authenticate: (token) => deps.auth.authenticate(token),
    ...queueLifecycle(deps),
    ...queueSettings(deps),
    ...pullRequestCommands(deps),
    ...pullRequestReads(deps),
    ...impactedTargets(deps),
    ...testRuns(deps),
    ...readModels(deps),
    ...refsNotices(deps),
    ...tryBuildsService(deps),
    webhooks: deps.webhooks,
    notifications: deps.notifications,
    directory: callerDirectory(deps),
    listAuditEvents: (ctx, query) => readAuditLog(deps.db, ctx.orgId, query),
  };
}
