import { Type } from '@sinclair/typebox';
import type { TestRunService } from '../../../app/service-port.js';
import { ServiceError } from '../../../lib/errors.js';
import { authOf } from '../../auth.js';
import { queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { ErrorBody } from '../schemas/common.js';
import { TestRunLogRequest } from '../schemas/extensions.js';

/** Extension: POST /v1/getTestRunLog — the built-in CI runner's output for one test run, as text. */
export const getTestRunLog: Route<TestRunService> = (app, { service }) => {
  app.post(
    '/getTestRunLog',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get the log of a test run (extension)',
        description: "Only runs of the built-in CI runner keep a log. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: TestRunLogRequest,
        response: {
          200: { description: 'The log', content: { 'text/plain; charset=utf-8': { schema: Type.String() } } },
          default: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { testRunId } = request.body;
      const log = await service.getTestRunLog(authOf(request), queueKey(request.body), testRunId);
      if (log === null) throw new ServiceError('LOG_NOT_FOUND', testRunId);
      return reply.type('text/plain; charset=utf-8').send(log);
    },
  );
};
