/**
 * Direct merge (contract §6.9, `directMergeMode = always`): a PR skips testing and merges at once
 * when it is based on the current tip of the target, its own required checks passed, the queue
 * (in parallel mode: its lane, the admitted PRs overlapping its targets) is empty and it is ready.
 * The forge tells the first two through `PrInfo.baseSha` and `checksPassed`, on submission or when
 * it reports the PR; a forge that does not know them never gets a direct merge. The merge effect
 * advances the target to the PR head itself (a fast-forward: its parent is the target).
 * Result: MERGED (MERGE_GRAPH_DIRECT_MERGE), or FAILED (DIRECT_MERGE_REFUSED).
 */
import type { Draft } from './draft.js';
import { mayMerge } from './freeze.js';
import { isAdmitted } from './ordering.js';
import { isReady } from './readiness.js';
import { headOf } from './runs.js';
import { sharedTargets } from './parallel-graph.js';
import type { Entry, PrInfo } from './types.js';

/** Not started testing yet: what direct merge may still take past testing. */
export const waitsToStart = (e: Entry): boolean =>
  e.state === 'NOT_READY' || (e.state === 'PENDING' && e.runId === null);

export function tryDirectMerge(d: Draft, entry: Entry, pr: PrInfo): void {
  const target = d.targetSha;
  if (d.config.directMergeMode !== 'always' || d.state !== 'RUNNING' || d.internal.merge || target === null) return;
  if (pr.checksPassed !== true || pr.baseSha !== target || pr.headSha !== entry.headSha) return;
  if (!waitsToStart(entry) || !mayMerge(d, [entry])) return;
  if (!isReady({ targetBranch: d.base.targetBranch, config: d.config }, entry)) return;
  const parallel = d.config.mode === 'parallel';
  const busy = d
    .allEntries()
    .some(
      (e) =>
        e.prNumber !== entry.prNumber &&
        isAdmitted(e) &&
        (!parallel || sharedTargets(e.impactedTargets, entry.impactedTargets) !== null),
    );
  if (busy) return;
  const runId = `direct:${entry.id}:${entry.trip}`;
  const prs = [headOf(entry)];
  d.internal.merge = { runId, prs, expectedTargetSha: target, rebuild: null, direct: true };
  d.emit({
    kind: 'merge',
    key: `${runId}:merge:${target}`,
    runId,
    expectedTargetSha: target,
    testSha: entry.headSha,
    prs,
    method: d.config.mergeMethod,
  });
  d.touch();
}
