import type { PullRequestService } from '../../../app/service-port.js';
import { ServiceError } from '../../../lib/errors.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { GetSubmittedRequest, SubmittedPr } from '../schemas/pull-request.js';
import { submittedPr, timelineOut } from '../wire.js';

/**
 * POST /v1/getSubmittedPullRequest (contract §2.4): one PR's entry in one queue, by number or by head
 * branch. 404 when the PR was never submitted to that queue. `includeTimeline: true` adds the entry's
 * transitions with their reasons (MIG mentions the flag for v1; its item shape is greenline's).
 */
export const getSubmittedPullRequest: Route<PullRequestService> = (app, { service, enumCase }) => {
  app.post(
    '/getSubmittedPullRequest',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get the status of a submitted PR',
        tags: ['Pull requests'],
        body: GetSubmittedRequest,
        response: replies(SubmittedPr),
      },
    },
    async (request) => {
      const { pr } = request.body;
      const lookup =
        pr.number !== undefined
          ? { number: prNumber(pr.number) }
          : pr.branch !== undefined
            ? { branch: pr.branch }
            : null;
      if (!lookup) throw new ServiceError('VALIDATION_FAILED', 'body/pr must have number or branch');
      const view = await service.getSubmittedPullRequest(authOf(request), queueKey(request.body), lookup);
      const reply = submittedPr(view, enumCase(request.headers));
      if (request.body.includeTimeline === true) reply.timeline = timelineOut(view.entry, enumCase(request.headers));
      return reply;
    },
  );
};
