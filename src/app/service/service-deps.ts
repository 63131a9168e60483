/**
 * What the service's areas (the other modules of this folder) are built from: one store, one executor,
 * one set of adapters, one clock, built once by the composition root (src/app/create-app.ts) and
 * handed to every area, each taking the part it uses. Besides, the reads several areas share: a
 * queue's view, its entries' outlook now, the forge that serves a repository.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { PrState, queueOrder, type PrOutlook } from '../../engine/index.js';
import type { Database, RepoRow } from '../../store/database.js';
import type { Clock } from '../../lib/clock.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { CiOutcome } from '../executor/ci-outcome.js';
import { outlookOf } from '../executor/pr-outlook.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import type { ApiDirectory } from '../read-models/api-directory.js';
import { bindingOf } from '../repo-binding.js';
import type { QueueView } from '../service-port.js';

export interface ServiceDeps {
  db: Kysely<Database>;
  executor: QueueExecutor;
  adapters: Adapters;
  ciOutcome: CiOutcome;
  clock: Clock;
  /** Ids of new queues and of PRs' first entries. */
  newId: () => string;
  logger?: Logger;
  /** The v2 API's ids; told when a queue is deleted. */
  directory: ApiDirectory;
}

/** The queue as getQueue and updateQueue answer it. `version`: the queue row's, when the caller has just read it. */
export async function queueView(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'clock'>,
  queueId: string,
  version?: number,
): Promise<QueueView> {
  const snapshot = await deps.executor.read(queueId, version);
  return {
    snapshot,
    at: deps.clock.now(),
    enqueued: queueOrder(snapshot).filter((e) => e.state !== PrState.NOT_READY),
    outlook: await outlookOf(deps.db, queueId, snapshot, deps.clock.now()),
  };
}

/** The outlook of the queue's entries as they are now. */
export async function outlookNow(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'clock'>,
  queueId: string,
): Promise<ReadonlyMap<number, PrOutlook>> {
  return outlookOf(deps.db, queueId, await deps.executor.read(queueId), deps.clock.now());
}

/** The repository as its forge addresses it, and that forge. */
export function forgeOfRepo(adapters: Adapters, repo: RepoRow) {
  const binding = bindingOf(repo);
  return { binding, forge: forgeFor(adapters, binding) };
}
