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
  /**
   * Set when this is no failed batch but a risky PR tested on its own before it joins the queue's
   * batches (risk.ts): why, in words, said on the PR when its run starts.
   */
  screening?: string;
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
  /**
   * The freeze last announced (`queue.frozen`, since when), until `queue.unfrozen`; null while not
   * frozen (freeze.ts).
   */
  freeze: { reason: string; until: number; since: number } | null;
  /** Milliseconds the queue spent frozen in freezes that ended (the frozen-seconds metric). */
  frozenMs: number;
  /**
   * How long (ms) the queue's last successful main runs took from CI start to result, oldest first,
   * at most RUN_DURATIONS_KEPT: what `testingTimeoutMinutes: "auto"` is computed from (ci-retries.ts).
   */
  runDurations: number[];
  /** Counters since the queue was created: CI run again (`retryCi`), and runs that passed after a retry. */
  ciRetries: number;
  flakyPasses: number;
  /** Per required status: its results, flaky passes and recent results (quarantine.ts). */
  statusStats: Record<string, StatusStats>;
  /** The statuses quarantined automatically (`autoQuarantine: "on"`), with why (quarantine.ts). */
  autoQuarantined: Record<string, AutoQuarantine>;
  /** The quarantined statuses last announced, in order: what a change is announced against. */
  quarantineAnnounced: string[];
  /** Why automatic quarantines were lifted in this decision, until announced (empty between decisions). */
  quarantineLifts: Record<string, string>;
  /**
   * The latest outcomes of each author's PRs in this queue, oldest first, 1 = FAILED, 0 = MERGED; keys
   * in order of their latest conclusion (risk.ts). Arrays are replaced, never changed in place.
   */
  authors: Record<string, number[]>;
}

export interface StatusStats {
  /** Results counted since the queue was created. */
  results: number;
  /** Runs whose status failed and then passed when CI was run again (TEST_RUN_PASSED_AFTER_RETRY). */
  flakyPasses: number;
  /** Failures of the status while quarantined, on runs that passed. */
  ignoredFailures: number;
  /** The latest results, oldest first, 1 = flaky: since its automatic quarantine while it holds. */
  recent: number[];
}

export interface AutoQuarantine {
  since: number;
  /** The figures that decided it: flaky results among the results looked at. */
  flaky: number;
  results: number;
  reason: string;
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
      ...(b.screening !== undefined ? { screening: b.screening } : {}),
    })),
    pendingMode: raw.pendingMode ?? null,
    wakeupAt: raw.wakeupAt ?? null,
    adaptive: raw.adaptive ? { window: raw.adaptive.window, failureRate: raw.adaptive.failureRate } : null,
    freeze: raw.freeze ? { reason: raw.freeze.reason, until: raw.freeze.until, since: raw.freeze.since } : null,
    frozenMs: raw.frozenMs ?? 0,
    runDurations: [...(raw.runDurations ?? [])],
    ciRetries: raw.ciRetries ?? 0,
    flakyPasses: raw.flakyPasses ?? 0,
    statusStats: Object.fromEntries(
      Object.entries(raw.statusStats ?? {}).map(([k, v]) => [
        k,
        {
          results: v.results,
          flakyPasses: v.flakyPasses,
          ignoredFailures: v.ignoredFailures ?? 0,
          recent: [...v.recent],
        },
      ]),
    ),
    autoQuarantined: Object.fromEntries(Object.entries(raw.autoQuarantined ?? {}).map(([k, v]) => [k, { ...v }])),
    quarantineAnnounced: [...(raw.quarantineAnnounced ?? [])],
    quarantineLifts: {},
    authors: { ...(raw.authors ?? {}) },
  };
}
