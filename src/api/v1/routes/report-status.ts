import type { TestRunService } from '../../../app/service-port.js';
import { ServiceError } from '../../../lib/errors.js';
import { CI_STATES } from '../../../forge/port.js';
import { authOf } from '../../auth.js';
import { canonical } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { ReportStatusRequest } from '../schemas/extensions.js';

/**
 * Extension: POST /v1/reportStatus — external CI reports a status for a test run (by its id, or by
 * the sha of its test commit), like a forge's commit-status API. The run's outcome follows from its
 * required statuses.
 */
export const reportStatus: Route<TestRunService> = (app, { service }) => {
  app.post(
    '/reportStatus',
    {
      config: { scopes: ['test_runs:report'] },
      schema: {
        summary: 'Report a CI status for a test run (extension)',
        description: "Give testRunId or sha. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: ReportStatusRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      const { body } = request;
      if (body.testRunId === undefined && body.sha === undefined) {
        throw new ServiceError('VALIDATION_FAILED', 'body must have testRunId or sha');
      }
      const { host, owner, name } = body.repo;
      await service.reportStatus(authOf(request), {
        repo: { host, owner, name },
        testRunId: body.testRunId,
        sha: body.sha?.toLowerCase(),
        status: {
          context: body.context,
          state: canonical(CI_STATES, body.state, 'body/state'),
          url: body.url,
          description: body.description,
        },
      });
      return {};
    },
  );
};
