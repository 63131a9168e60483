import type { TestRunService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { TestingDetails, TestRunRequest } from '../schemas/testing-details.js';
import { testingDetails } from '../wire.js';

/** POST /v1/getMergeQueueTestingDetails (contract §2.7): one test run of a queue. */
export const getMergeQueueTestingDetails: Route<TestRunService> = (app, { service }) => {
  app.post(
    '/getMergeQueueTestingDetails',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get the details of a test run',
        tags: ['Pull requests'],
        body: TestRunRequest,
        response: replies(TestingDetails),
      },
    },
    async (request) => {
      const key = queueKey(request.body);
      const view = await service.getTestingDetails(authOf(request), key, request.body.testRunId);
      return testingDetails(view);
    },
  );
};
