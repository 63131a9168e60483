/** Test runs: their details, the statuses external CI reports, the built-in runner's log (contract §2.7 + extensions). */
import { reportStatus, runOfQueue, testingDetails } from '../read-models/test-run-details.js';
import { queueOfOrg } from '../request-scope.js';
import type { TestRunService } from '../service-port.js';
import type { ServiceDeps } from './service-deps.js';

export function testRuns(deps: Pick<ServiceDeps, 'db' | 'adapters' | 'ciOutcome' | 'clock'>): TestRunService {
  return {
    getTestingDetails: async (ctx, key, testRunId) =>
      testingDetails(deps.db, await queueOfOrg(deps.db, ctx, key), testRunId),

    reportStatus: (ctx, req) => reportStatus(deps, ctx, req),

    async getTestRunLog(ctx, key, testRunId) {
      await runOfQueue(deps.db, await queueOfOrg(deps.db, ctx, key), testRunId);
      return (await deps.adapters.ci.getLog?.(testRunId)) ?? null;
    },
  };
}
