import type { TestRunService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { TestRunChanges, TestRunChangesRequest } from '../schemas/extensions.js';
import { testRunChanges } from '../wire.js';

/**
 * Extension: POST /v1/getTestRunChanges — what a test run (by its id, or by the sha of its test
 * commit) tests against and what changed: what CI reads to run only the jobs whose paths changed. It
 * takes the credential CI reports statuses with (`test_runs:report`, a CI identity) as well as `read`.
 */
export const getTestRunChanges: Route<TestRunService> = (app, { service }) => {
  app.post(
    '/getTestRunChanges',
    {
      config: { scopes: ['read', 'test_runs:report'] },
      schema: {
        summary: 'Get what a test run tests against and what changed (extension)',
        description: "Give testRunId or sha. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: TestRunChangesRequest,
        response: replies(TestRunChanges),
      },
    },
    async (request) => {
      const { body } = request;
      const { host, owner, name } = body.repo;
      const run = await service.getTestRunChanges(authOf(request), {
        repo: { host, owner, name },
        testRunId: body.testRunId,
        sha: body.sha?.toLowerCase(),
      });
      return testRunChanges(run);
    },
  );
};
