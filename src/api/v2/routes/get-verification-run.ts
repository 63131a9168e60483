import { Type } from '@sinclair/typebox';
import { V2Error } from '../errors.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { runOut } from '../runs.js';
import { Answer } from '../schemas.js';

/** GET /v2/merge-queue-verification-runs/{id}: one run (v1's testRunId), with its impacted targets. */
export const getVerificationRun: V2Route = (app, { service }) => {
  app.get(
    '/merge-queue-verification-runs/:id',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get a verification run',
        tags: ['Verification runs'],
        params: Type.Object({ id: Type.String({ minLength: 1 }) }),
        response: { 200: Answer('VerificationRun', 'The run') },
      },
    },
    async (request) => {
      const { id } = request.params;
      const found = await service.directory.run(callerOf(request), id);
      if (!found)
        throw new V2Error(404, 'VERIFICATION_RUN_NOT_FOUND', `No verification run has id ${JSON.stringify(id)}`);
      return runOut(service, request, found.handle, found.run, true);
    },
  );
};
