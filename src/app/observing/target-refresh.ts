/** Reading a queue's target branch head from the forge and telling the engine when it moved. */
import type { Kysely } from 'kysely';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { hasEffectActivitySince } from '../../store/effects.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { Clock } from '../../lib/clock.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import { bindingOf } from '../repo-binding.js';

export interface TargetRefreshDeps {
  db: Kysely<Database>;
  adapters: Adapters;
  executor: QueueExecutor;
  clock: Clock;
}

/**
 * Sends `targetMoved` when the forge's target head differs from the queue's. Skipped when a merge
 * effect of the queue is pending or finished since the read: the head read may be our own merge whose
 * `merged` event is not applied yet, or older than a merge applied meanwhile, and the engine must not
 * mistake either for a push from outside. The next poll reads again. True when the head read differs
 * from the queue's.
 */
export async function refreshTarget(
  deps: TargetRefreshDeps,
  queue: Pick<QueueRow, 'id' | 'target_branch'>,
  repo: RepoRow,
): Promise<boolean> {
  const binding = bindingOf(repo);
  const readAt = deps.clock.now();
  const sha = await forgeFor(deps.adapters, binding).getBranchSha(binding, queue.target_branch);
  if (!sha) return false;
  let differs = false;
  await deps.executor.apply(queue.id, async (s, trx) => {
    differs = s.targetSha !== sha;
    if (!differs || (await hasEffectActivitySince(trx, queue.id, 'merge', readAt))) return null;
    return { kind: 'targetMoved', at: deps.clock.now(), sha };
  });
  return differs;
}
