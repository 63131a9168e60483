/** A queue read, and its config and state changed (contract §2.9, §2.10). */
import type { Transaction } from 'kysely';
import { ServiceError } from '../../lib/errors.js';
import type { Database } from '../../store/database.js';
import { markConfigWrite } from '../../store/queues.js';
import { queueOfOrg } from '../request-scope.js';
import type { QueueService } from '../service-port.js';
import { changesOf } from '../../audit/audit-log.js';
import { isTerminal } from '../../engine/types.js';
import { pathTargetsChangeNote } from '../path-targets.js';
import { noteOf, placeOf } from './audit-notes.js';
import { configPatch } from './request-checks.js';
import { queueView, type ServiceDeps } from './service-deps.js';

/** The action of each state a caller may set. */
const STATE_ACTIONS = { RUNNING: 'queue.resume', PAUSED: 'queue.pause', DRAINING: 'queue.drain' } as const;

export function queueSettings(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'clock'>,
): Pick<QueueService, 'getQueue' | 'updateQueue'> {
  return {
    async getQueue(ctx, key) {
      const { queue } = await queueOfOrg(deps.db, ctx, key);
      return queueView(deps, queue.id, queue.version);
    },

    async updateQueue(ctx, key, update, source = 'other') {
      const { repo, queue } = await queueOfOrg(deps.db, ctx, key);
      const { state, deleteRequiredStatuses, requiredStatuses, refuseWhileSwitching, ...rest } = update;
      // A list, empty or not, is the override (empty: no check required); deleteRequiredStatuses clears it.
      const patch = configPatch({
        ...rest,
        ...(requiredStatuses ? { requiredStatuses } : {}),
        ...(deleteRequiredStatuses ? { requiredStatuses: null } : {}),
      });
      if (state !== undefined && !['RUNNING', 'PAUSED', 'DRAINING'].includes(state)) {
        throw new ServiceError('VALIDATION_FAILED', 'state must be one of RUNNING, PAUSED, DRAINING');
      }
      const at = deps.clock.now();
      // Who wrote is recorded with the write itself, in its transaction (contract §2.10).
      const marked = {
        alsoInTransaction: (trx: Transaction<Database>) => markConfigWrite(trx, queue.id, source === 'terraform', at),
      };
      const place = placeOf(repo, queue.target_branch);
      // What the write means that the settings alone do not say, for the caller.
      let notes: string[] = [];
      if (Object.keys(patch).length > 0)
        await deps.executor.applyOrThrow(
          queue.id,
          { kind: 'updateConfig', at, patch, ...(refuseWhileSwitching ? { refuseWhileSwitching } : {}) },
          {
            ...marked,
            audit: (before, after) => {
              const admitted = before.entries.filter((e) => !isTerminal(e.state)).length;
              const note = pathTargetsChangeNote(
                before.config.impactedTargetsFromPaths,
                after.config.impactedTargetsFromPaths,
                admitted,
              );
              notes = note ? [note] : [];
              return noteOf(ctx, at, 'queue.update', place, changesOf({ ...before.config }, { ...after.config }));
            },
          },
        );
      if (state !== undefined)
        await deps.executor.applyOrThrow(
          queue.id,
          { kind: 'setState', at, state },
          {
            ...marked,
            audit: (before, after) =>
              noteOf(ctx, at, STATE_ACTIONS[state], place, { state: { from: before.state, to: after.state } }),
          },
        );
      return { ...(await queueView(deps, queue.id)), notes };
    },
  };
}
