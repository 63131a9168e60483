import { configSource } from '../../config-source.js';
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
      config: { scopes: ['queues:write'] },
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
      // A queue already switching refuses (SWITCHING_MODES: 409 MODE_CHANGE_IN_PROGRESS).
      const view = await service.updateQueue(
        callerOf(request),
        handle.key,
        { mode: modeIn(request.body.mode), refuseWhileSwitching: true },
        configSource(request.headers),
      );
      return stateChangeOut(handle.shortId, view.snapshot);
    },
  );
};
