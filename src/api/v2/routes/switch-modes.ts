import { configSource } from '../../config-source.js';
import { V2Error } from '../errors.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, Body, IdParams, Mode } from '../schemas.js';
import { modeIn, stateChangeOut } from '../wire.js';

/** POST /v2/merge-queues/{id}/switch-modes: starts a queue ↔ graph conversion; answers the state after it. */
export const switchModes: V2Route = (app, { service }) => {
  app.post(
    '/merge-queues/:id/switch-modes',
    {
      schema: {
        summary: 'Switch a merge queue between queue and graph mode',
        tags: ['Merge queues'],
        params: IdParams,
        body: Body({ mode: Mode }),
        response: { 200: Answer('MergeQueueStateChange', "The queue's state after the write") },
      },
    },
    async (request) => {
      const handle = await queueOf(service, request, request.params.id);
      const ctx = callerOf(request);
      const before = await service.getQueue(ctx, handle.key);
      if (before.snapshot.state === 'SWITCHING_MODES')
        throw new V2Error(409, 'MODE_CHANGE_IN_PROGRESS', 'The queue is already switching modes');
      const view = await service.updateQueue(
        ctx,
        handle.key,
        { mode: modeIn(request.body.mode) },
        configSource(request.headers),
      );
      return stateChangeOut(handle.shortId, view.snapshot);
    },
  );
};
