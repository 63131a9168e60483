import { Type } from '@sinclair/typebox';
import { invalid } from '../errors.js';
import { factsAfter } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Body, PriorityName, PriorityValue, UuidParams } from '../schemas.js';
import { pullRequestOut } from '../wire.js';
import { liveEntryOf } from './live-entry.js';

/** PATCH /v2/pull-requests/{id}/queue-entry: a live entry's priority, direct and allowBatching. */
export const updateQueueEntry: V2Route = (app, { service }) => {
  app.patch(
    '/pull-requests/:id/queue-entry',
    {
      config: { scopes: ['pull_requests:write'] },
      schema: {
        summary: "Change a queued pull request's entry",
        tags: ['Pull requests'],
        params: UuidParams,
        body: Type.Intersect([
          Body({
            priorityValue: Type.Optional(PriorityValue),
            priorityName: Type.Optional(PriorityName),
            direct: Type.Optional(Type.Boolean()),
            allowBatching: Type.Optional(Type.Boolean()),
          }),
          Type.Object({}, { minProperties: 1 }),
        ]),
        response: { 200: Answer('PullRequest', 'The pull request after the change') },
      },
    },
    async (request) => {
      const { priorityValue, priorityName, direct, allowBatching } = request.body;
      if (priorityValue !== undefined && priorityName !== undefined)
        throw invalid('send priorityValue or priorityName, not both');
      const { pr, queue } = await liveEntryOf(service, request, request.params.id);
      const written = await service.submitPullRequest(callerOf(request), queue, {
        prNumber: pr.number,
        ...(priorityValue !== undefined || priorityName !== undefined
          ? { priority: priorityValue ?? priorityName }
          : {}),
        ...(allowBatching !== undefined ? { noBatch: !allowBatching } : {}),
        ...(direct !== undefined ? { forceEnqueued: direct } : {}),
      });
      return pullRequestOut((await factsAfter(service, request, pr, written))!);
    },
  );
};
