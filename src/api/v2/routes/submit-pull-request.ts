import { Type } from '@sinclair/typebox';
import { isTerminal } from '../../../engine/types.js';
import { invalid, V2Error } from '../errors.js';
import { factsAfter, queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Body, IdParams, PriorityName, PriorityValue, PrNumber } from '../schemas.js';
import { pullRequestOut } from '../wire.js';

/**
 * POST /v2/merge-queues/{id}/pull-requests: submits a PR (201 with the pull request). Unlike v1, a PR
 * already in the queue is 409 PR_ALREADY_ENQUEUED (change its priority with reprioritize).
 */
export const submitPullRequest: V2Route = (app, { service }) => {
  app.post(
    '/merge-queues/:id/pull-requests',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: 'Submit a pull request to a merge queue',
        tags: ['Pull requests'],
        params: IdParams,
        body: Body({
          number: PrNumber,
          allowBatching: Type.Optional(Type.Boolean()),
          priorityValue: Type.Optional(PriorityValue),
          priorityName: Type.Optional(PriorityName),
          direct: Type.Optional(Type.Boolean()),
        }),
        response: { 201: Answer('PullRequest', 'The pull request with its queue entry') },
      },
    },
    async (request, reply) => {
      const { number, allowBatching, priorityValue, priorityName, direct } = request.body;
      if (priorityValue !== undefined && priorityName !== undefined)
        throw invalid('send priorityValue or priorityName, not both');
      const handle = await queueOf(service, request, request.params.id);
      const ctx = callerOf(request);
      const entry = await service.directory.entryIn(handle.queue.id, number);
      if (entry && !isTerminal(entry.state))
        throw new V2Error(
          409,
          'PR_ALREADY_ENQUEUED',
          `Pull request #${number} is already in this queue; change its priority with POST /v2/pull-requests/{id}/reprioritize`,
        );
      const written = await service.submitPullRequest(ctx, handle.target, {
        prNumber: number,
        ...(priorityValue !== undefined || priorityName !== undefined
          ? { priority: priorityValue ?? priorityName }
          : {}),
        ...(allowBatching !== undefined ? { noBatch: !allowBatching } : {}),
        ...(direct !== undefined ? { forceEnqueued: direct } : {}),
      });
      const pr = await service.directory.pullRequestOf(handle.repo, number);
      const facts = await factsAfter(service, request, pr, written);
      void reply.code(201);
      return pullRequestOut(facts!);
    },
  );
};
