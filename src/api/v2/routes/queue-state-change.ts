/** POST /v2/merge-queues/{id}/pause, /resume and /drain share this: the state the engine reports after the write. */
import type { SettableQueueState } from '../../../engine/types.js';
import { configSource } from '../../config-source.js';
import { queueOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Answer, IdParams } from '../schemas.js';
import { stateChangeOut } from '../wire.js';

export const queueStateChange =
  (action: 'pause' | 'resume' | 'drain', state: SettableQueueState, summary: string): V2Route =>
  (app, { service }) => {
    app.post(
      `/merge-queues/:id/${action}`,
      {
        config: { scopes: ['queues:write'] },
        schema: {
          summary,
          tags: ['Merge queues'],
          params: IdParams,
          response: { 200: Answer('MergeQueueStateChange', "The queue's state after the write") },
        },
      },
      async (request) => {
        const handle = await queueOf(service, request, request.params.id);
        // A queue switching modes refuses the state (SWITCHING_MODES: 409 MODE_CHANGE_IN_PROGRESS).
        const view = await service.updateQueue(callerOf(request), handle.key, { state }, configSource(request.headers));
        return stateChangeOut(handle.shortId, view.snapshot);
      },
    );
  };
