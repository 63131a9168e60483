import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { factsAfter } from '../lookups.js';
import type { V2Route } from '../route.js';
import { Answer, Body, PriorityName, PriorityValue, UuidParams } from '../schemas.js';
import { pullRequestOut } from '../wire.js';
import { liveEntryOf } from './live-entry.js';

/** POST /v2/pull-requests/{id}/reprioritize: a live entry's new priority (priorityValue 0 skips the line). */
export const reprioritizePullRequest: V2Route = (app, { service }) => {
  app.post(
    '/pull-requests/:id/reprioritize',
    {
      config: { scopes: ['pull_requests:priority'] },
      schema: {
        summary: "Change a queued pull request's priority",
        tags: ['Pull requests'],
        params: UuidParams,
        body: Type.Union([Body({ priorityValue: PriorityValue }), Body({ priorityName: PriorityName })]),
        response: { 200: Answer('PullRequest', 'The pull request after the change') },
      },
    },
    async (request) => {
      const { pr, queue } = await liveEntryOf(service, request, request.params.id);
      const { body } = request;
      // Resubmitting a live entry changes its priority in place (v1's semantics of submit).
      const written = await service.submitPullRequest(callerOf(request), queue, {
        prNumber: pr.number,
        priority: 'priorityValue' in body ? body.priorityValue : body.priorityName,
      });
      return pullRequestOut((await factsAfter(service, request, pr, written))!);
    },
  );
};
