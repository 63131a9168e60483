/** Test runs: their details, the statuses external CI reports, the built-in runner's log (contract §2.7 + extensions). */
import { recordAudit } from '../../audit/audit-log.js';
import { CI_STATES } from '../../forge/port.js';
import { ServiceError } from '../../lib/errors.js';
import { findQueueById } from '../../store/queues.js';
import { findRunRow, findRunRowByTestSha, runOf } from '../../store/test-runs.js';
import { runOfQueue, testingDetails } from '../read-models/test-run-details.js';
import { repoRefOf, repoSlug } from '../repo-binding.js';
import { queueOfOrg, repoOfOrg } from '../request-scope.js';
import type { RepoRef } from '../../engine/types.js';
import type { AuthContext, TestRunService } from '../service-port.js';
import type { ServiceDeps } from './service-deps.js';

export function testRuns(deps: Pick<ServiceDeps, 'db' | 'adapters' | 'ciOutcome' | 'clock'>): TestRunService {
  const { db, ciOutcome } = deps;

  /** The run a repository's CI names by its id or its test commit; 404 when the repository has none such. */
  async function runNamed(ctx: AuthContext, req: { repo: RepoRef; testRunId?: string; sha?: string }) {
    if (!req.testRunId && !req.sha)
      throw new ServiceError('VALIDATION_FAILED', 'send testRunId or sha to name the test run');
    const repo = await repoOfOrg(db, ctx, req.repo);
    const row = req.testRunId ? await findRunRow(db, req.testRunId) : await findRunRowByTestSha(db, repo.id, req.sha!);
    const queue = row && (await findQueueById(db, row.queue_id));
    if (!row || queue?.repo_id !== repo.id)
      throw new ServiceError('TEST_RUN_NOT_FOUND', req.testRunId ?? `with test commit ${req.sha}`);
    return { repo, queue, row };
  }

  return {
    getTestingDetails: async (ctx, key, testRunId) => testingDetails(db, await queueOfOrg(db, ctx, key), testRunId),

    /** External CI reports a status for a test run of a repo of the caller's org, by run id or test sha. */
    async reportStatus(ctx, req) {
      const { context, state } = req.status;
      if (typeof context !== 'string' || context === '')
        throw new ServiceError('VALIDATION_FAILED', 'context must be a non-empty status name');
      if (!(CI_STATES as readonly string[]).includes(state))
        throw new ServiceError('VALIDATION_FAILED', `state must be one of ${CI_STATES.join(', ')}`);
      // The run's row is read once: the status is recorded for it and judged against it as read here.
      const { repo, queue, row } = await runNamed(ctx, req);
      await ciOutcome.recordOf(row, req.status);
      await recordAudit(db, {
        orgId: ctx.orgId,
        at: deps.clock.now(),
        by: ctx,
        action: 'test_run.report_status',
        target: {
          ...(ctx.orgName ? { org: ctx.orgName } : {}),
          repo: repoSlug(repoRefOf(repo)),
          targetBranch: queue.target_branch,
          testRun: row.id,
          context,
          state,
        },
      });
    },

    /** What a run tests against and what changed, for the repository's CI (by run id or test commit). */
    async getTestRunChanges(ctx, req) {
      return runOf((await runNamed(ctx, req)).row);
    },

    async getTestRunLog(ctx, key, testRunId) {
      await runOfQueue(db, await queueOfOrg(db, ctx, key), testRunId);
      return (await deps.adapters.ci.getLog?.(testRunId)) ?? null;
    },
  };
}
