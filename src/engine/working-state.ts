/**
 * The engine's own bookkeeping, kept in `snapshot.internal` (plain JSON). Everything the engine needs
 * between events that has no place on entries or runs lives here.
 */
import type { QueueMode, QueueSnapshot, RunPr } from './types.js';

/** One step of the target branch's history as far as this engine moved it. */
export interface TargetStep {
  sha: string;
  /** PR heads the merge that produced `sha` put on the target, in order (empty for the anchor). */
  prs: RunPr[];
}

/** The one merge effect allowed in flight per queue (DESIGN §3 "Merging"). */
export interface MergeInFlight {
  runId: string;
  /** The PRs that become MERGED, in order. */
  prs: RunPr[];
  expectedTargetSha: string;
  /**
   * Parallel mode only: when lanes merged since the run's base, the group is first rebuilt on the
   * current target (a `createTestBranch` with this id) and the rebuilt commit is what gets merged.
   */
  rebuild: { id: string; branch: string; sha: string | null } | null;
  /** A direct merge of one untested PR (contract §6.9), not of a test run. */
  direct?: boolean;
}

/** One subset of a failed batch still to be tested (contract §6.3). */
export interface BisectionPart {
  prNumbers: number[];
  runId: string | null;
  /**
   * The PRs of the part this one waits for (the first half of the same split; bisection.ts, policy 3):
   * it is tested only once that part passed. Absent when the part can be tested at once.
   */
  after?: number[];
}

export interface Bisection {
  id: string;
  /** Every PR of the failed batch, in order (cleared ones included). */
  members: number[];
  /** Content keys (see `contentKey`) of every run of this batch that failed: the batch's and the parts'. */
  failedKeys: string[];
  parts: BisectionPart[];
  /**
   * PRs that merged past the batch while it was under bisection (merging.ts): groups behind it that
   * were tested without it. A part's run built before they landed no longer tests what is ahead of it.
   */
  overtakenBy: number[];
}

export interface EngineInternal {
  /**
   * PR numbers of admitted entries whose group started testing at least once this trip, in queue
   * order. They keep this position when they are restarted; entries that never started follow them,
   * sorted by priority then admission (see ordering.ts).
   */
  order: number[];
  /**
   * The target's shas since the last move from outside, oldest (the anchor) first: each later step is
   * one of our merges. Lets a run built on an older step be merged when the merges since then are
   * exactly the PRs at the front of its own list.
   */
  targetHistory: TargetStep[];
  merge: MergeInFlight | null;
  /** A target sighting that arrived while a merge was in flight; applied when the merge settles. */
  deferredTargetSha: string | null;
  /** PRs of the merge in flight reported merged outside the queue meanwhile; settled with the merge. */
  deferredMergedOutside: number[];
  bisections: Bisection[];
  /** Mode to switch to once the queue drained (state SWITCHING_MODES). */
  pendingMode: QueueMode | null;
  /** The earliest wakeup already asked for, so the same one is not asked for on every event. */
  wakeupAt: number | null;
  /** Adaptive mode's measurements (adaptive.ts); null while the mode is off or nothing was measured yet. */
  adaptive: AdaptiveState | null;
}

export interface AdaptiveState {
  /** Main runs allowed in flight at once, within [floor, ceiling]. */
  window: number;
  /** p̂: exponentially weighted share of the queue's conclusions that were failures. */
  failureRate: number;
}

export function readInternal(snapshot: QueueSnapshot): EngineInternal {
  const raw = snapshot.internal as Partial<EngineInternal>;
  const history = raw.targetHistory ?? (snapshot.targetSha ? [{ sha: snapshot.targetSha, prs: [] }] : []);
  return {
    order: [...(raw.order ?? [])],
    targetHistory: history.map((s) => ({ sha: s.sha, prs: s.prs })),
    merge: raw.merge ? { ...raw.merge, rebuild: raw.merge.rebuild ? { ...raw.merge.rebuild } : null } : null,
    deferredTargetSha: raw.deferredTargetSha ?? null,
    deferredMergedOutside: [...(raw.deferredMergedOutside ?? [])],
    bisections: (raw.bisections ?? []).map((b) => ({
      id: b.id,
      members: [...b.members],
      failedKeys: [...b.failedKeys],
      parts: b.parts.map((p) => ({
        prNumbers: p.prNumbers,
        runId: p.runId,
        ...(p.after ? { after: [...p.after] } : {}),
      })),
      overtakenBy: [...(b.overtakenBy ?? [])],
    })),
    pendingMode: raw.pendingMode ?? null,
    wakeupAt: raw.wakeupAt ?? null,
    adaptive: raw.adaptive ? { window: raw.adaptive.window, failureRate: raw.adaptive.failureRate } : null,
  };
}
