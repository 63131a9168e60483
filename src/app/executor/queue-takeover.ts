/**
 * What an instance does with a queue it has just taken (at start-up, or from an instance that stopped
 * renewing its lease), before driving it:
 * 1. Effects the old holder claimed and never finished are due again at once (store: releaseForeignClaims).
 *    Every effect is safe to repeat: a test branch is rebuilt to the same commit, a merge already on
 *    the target is recognised as done, CI of a run is started at most once per instance.
 *    They keep their place in the order of their run (store/effects.ts), so a taken-back effect
 *    never runs after its run's later effects, e.g. its clean-up.
 * 2. Runs in progress whose built-in CI ran in another instance lost their command with it: a run the
 *    statuses already settle gets its outcome; any other gets its `startCi` effect issued again, so
 *    this instance's CI runs it (and records itself as the run's CI instance).
 * 3. Webhook and chat deliveries the former holders had in flight are due again at once
 *    (delivery/messages.ts: releaseDeliveryClaims) rather than after their 75 s reservation; messages
 *    of a PR still go out one after the other, the released one first.
 * 4. Test branches no queue of the repository needs any more (of finished or cancelled runs, or of
 *    runs the store does not know) are deleted from the forge (test-branch-reconcile.ts).
 * 5. The CI adapter removes what an earlier process on this data dir left behind (`CiPort.cleanUp`:
 *    work trees of runs not running here, CI processes still alive).
 * Steps 4 and 5 are best effort: what fails is logged, and the next takeover or start tries again.
 * The rest of the forge side is reconciled by the poller as usual (target head, PR heads).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../../store/database.js';
import { releaseForeignClaims, reissueEffect } from '../../store/effects.js';
import { findRunRow, listRunsWithForeignCi } from '../../store/test-runs.js';
import { releaseDeliveryClaims } from '../../delivery/messages.js';
import { NOTIFY_TABLES } from '../../notify/outbox.js';
import { WEBHOOK_TABLES } from '../../webhooks/outbox.js';
import type { Adapters } from '../adapters.js';
import type { CiOutcome } from './ci-outcome.js';
import type { Clock } from '../../lib/clock.js';
import { removeLeftoverTestBranches } from './test-branch-reconcile.js';

export interface TakeoverDeps {
  db: Kysely<Database>;
  clock: Clock;
  ciOutcome: CiOutcome;
  adapters: Adapters;
  instanceId: string;
  logger?: Logger;
}

export async function takeOverQueues(
  deps: TakeoverDeps,
  queueIds: readonly string[],
  formerHolders: readonly string[],
): Promise<void> {
  const { db, clock, ciOutcome, instanceId, logger } = deps;
  const dead = formerHolders.filter((id) => id !== instanceId);
  const deliveries =
    (await releaseDeliveryClaims(db, WEBHOOK_TABLES, dead, clock.now())) +
    (await releaseDeliveryClaims(db, NOTIFY_TABLES, dead, clock.now()));
  if (deliveries > 0)
    logger?.info(
      { from: formerHolders, deliveries },
      'resending webhook and chat deliveries of an instance taken over',
    );
  for (const queueId of queueIds) {
    const released = await releaseForeignClaims(db, queueId, instanceId, clock.now());
    const restarted: string[] = [];
    for (const run of await listRunsWithForeignCi(db, queueId, instanceId)) {
      await ciOutcome.evaluate(run.id);
      if ((await findRunRow(db, run.id))?.status !== 'in_progress') continue;
      if (await reissueEffect(db, queueId, `${run.id}:startCi`, clock.now())) restarted.push(run.id);
    }
    if (released > 0 || restarted.length > 0) {
      logger?.info(
        { queue: queueId, effects: released, ciRestarted: restarted },
        'resuming work of a queue taken over',
      );
    }
  }
  await removeLeftoverTestBranches(deps, queueIds);
  await deps.adapters.ci
    .cleanUp?.()
    .catch((err: unknown) =>
      logger?.warn({ err }, 'leftovers of an earlier CI process not removed; the next takeover tries again'),
    );
}
