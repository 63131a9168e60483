/**
 * Settling PENDING_FAILURE (contract §6.5). A failed group leaves PENDING_FAILURE only when
 *
 * 1. every entry its failed run was built on has settled (always): none is PENDING, TESTING,
 *    PENDING_FAILURE or under bisection. Those are the predecessors that could have failed the run;
 *    one it left out (a batch under bisection, a group known to be failing) cannot explain its
 *    failure, and is not waited for. If one of them failed, the validity sweep has already restarted
 *    this group without the culprit (PREREQUISITE_MERGE_ITEM_FAILED); and
 * 2. with `pendingFailureDepth` = N > 0, the groups within N levels behind it finished testing
 *    (none PENDING or TESTING); newly admitted successors count too.
 *
 * A group whose retry is still running (stepped out of the chain, ci-retries.ts) waits for it.
 *
 * Then a successor that included it and passed would already have vouched for it under optimistic
 * merging (run-results.ts); otherwise the failure is its own: a single PR → FAILED with the run's
 * failure reason, a batch → bisection (bisection.ts). Either way adaptive mode's window shrinks (adaptive.ts).
 */
import { recordGroupFailure } from './adaptive.js';
import { bisectingSet } from './bisection-state.js';
import { failAlone, startBisection } from './bisection.js';
import type { Draft } from './draft.js';
import { groupKey, isInFlight } from './runs.js';
import type { Topology } from './topology.js';
import { emitBatchEvent } from './transitions.js';
import { activeGroups, dependenciesOf } from './validity.js';
import { isTerminal, type Entry, type TestRun } from './types.js';

export function resolvePendingFailures(d: Draft, topo: Topology): boolean {
  const bisecting = bisectingSet(d);
  const unsettled = (e: Entry): boolean =>
    e.state === 'PENDING' || e.state === 'TESTING' || e.state === 'PENDING_FAILURE' || bisecting.has(e.prNumber);
  for (const [runId, members] of activeGroups(d, topo)) {
    if (!members.every((m) => m.state === 'PENDING_FAILURE')) continue;
    const run = d.run(runId);
    if (isInFlight(run)) continue; // its retry decides (ci-retries.ts)
    if (builtOn(d, run, topo, members).some(unsettled)) continue;
    const depth = d.config.pendingFailureDepth;
    if (depth > 0) {
      const own = new Set(members.map((m) => m.prNumber));
      const behind = members.flatMap((m) => topo.successors(m.prNumber, depth, groupKey));
      if (behind.some((e) => !own.has(e.prNumber) && (e.state === 'PENDING' || e.state === 'TESTING'))) continue;
    }
    recordGroupFailure(d);
    if (members.length > 1 && run) {
      startBisection(d, run, members);
    } else {
      const reason = run?.failureReason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED';
      const detail = run?.failureDetail ?? null;
      for (const m of members) failAlone(d, m, reason, detail);
      if (run)
        emitBatchEvent(
          d,
          'pull_request_batch.failed',
          members.map((m) => m.prNumber),
          run,
          reason,
        );
    }
    // One at a time: the others are judged again after the validity sweep saw this one's outcome.
    return true;
  }
  return false;
}

/** The queued entries a failed run was built on: what could have failed it besides the group itself. */
function builtOn(d: Draft, run: TestRun | undefined, topo: Topology, members: Entry[]): Entry[] {
  if (!run) return dependenciesOf(topo, members);
  return run.dependentPrs.map((n) => d.entry(n)).filter((e): e is Entry => e !== undefined && !isTerminal(e.state));
}
