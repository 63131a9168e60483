import { ServiceError } from '../../../lib/errors.js';
import { authOf } from '../../auth.js';
import { prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { GetSubmittedBatchRequest, SubmittedBatch } from '../schemas/pull-request.js';
import { submittedPr, timelineOut } from '../wire.js';

/**
 * POST /v1/getSubmittedPullRequests (Trunk's migration guide; schema unpublished): up to 50 PRs of one
 * queue by number, each as getSubmittedPullRequest answers it, and `notFound` for the numbers never
 * submitted to the queue.
 */
export const getSubmittedPullRequests: Route = (app, { service, enumCase }) => {
  app.post(
    '/getSubmittedPullRequests',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Get the status of several submitted PRs',
        tags: ['Pull requests'],
        body: GetSubmittedBatchRequest,
        response: replies(SubmittedBatch),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      const key = queueKey(request.body);
      const spelling = enumCase(request.headers);
      const numbers = [...new Set(request.body.prs.map((pr) => prNumber(pr.number)))];
      const answers = await Promise.all(
        numbers.map((number) =>
          service.getSubmittedPullRequest(ctx, key, { number }).catch((err: unknown) => {
            if (err instanceof ServiceError && err.code === 'PR_NOT_SUBMITTED') return number;
            throw err;
          }),
        ),
      );
      return {
        pullRequests: answers
          .filter((a) => typeof a !== 'number')
          .map((view) => {
            const reply = submittedPr(view, spelling);
            if (request.body.includeTimeline === true) reply.timeline = timelineOut(view.entry, spelling);
            return reply;
          }),
        notFound: answers.filter((a) => typeof a === 'number').map((number) => ({ number })),
      };
    },
  );
};
