/**
 * What a simulation measured, and the summary it reports. Raw facts (times of merges, CI starts,
 * restarts, queue depth changes) are collected as they happen; figures are computed once, over the
 * measurement window: after the warm-up, until arrivals stop (a draining queue is not a busy one).
 */
import type { AdaptiveStatus, Entry } from '../engine/index.js';
import { percentile } from '../lib/percentile.js';
import { MINUTE_MS } from '../lib/time.js';

const TESTED_STATES = new Set(['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE']);

/**
 * A transition back to PENDING that restarted a PR's testing, rather than a step of its own batch's
 * bisection: the batch going to bisection (BISECTION_REQUIRED) or a part of it passing out of a
 * bisection run (BISECTION_TEST_RUN_PASSED). A main run stopped because a cleared part went ahead of
 * it carries BISECTION_TEST_RUN_PASSED too, and is a restart.
 */
function isRestart(t: Entry['timeline'][number], isBisectionRun: (runId: string) => boolean): boolean {
  if (t.to !== 'PENDING' || t.from === null || !TESTED_STATES.has(t.from)) return false;
  if (t.reason === 'BISECTION_REQUIRED') return false;
  return !(t.reason === 'BISECTION_TEST_RUN_PASSED' && t.runId !== undefined && isBisectionRun(t.runId));
}

export interface SimulationSummary {
  seed: number;
  /** Simulated time from the first arrival until the queue drained, in hours. */
  simulatedHours: number;
  warmupMinutes: number;
  /** The measurement window, in hours. */
  windowHours: number;
  prs: {
    arrived: number;
    merged: number;
    /** Bad PRs the queue rejected: what it is for. */
    failedBad: number;
    /** Good PRs rejected anyway (flaky runs). */
    failedGood: number;
    /** Bad PRs that reached the target branch: must be 0. */
    mergedBad: number;
    /** PRs still queued when the simulation ended (none, unless the queue is stuck). */
    left: number;
  };
  mergesPerHour: number;
  /** Merged PRs whose time in queue (submission to merge) began in the window, in minutes. */
  timeInQueueMinutes: { p50: number; p95: number; mean: number; max: number } | null;
  /**
   * The merge time estimated at submission (queueOutlook) against the real one, for merged PRs whose
   * time in queue began in the window: absolute error as a share of the time in queue. null without any.
   */
  eta: {
    p50: number;
    p90: number;
    estimated: number;
    unestimated: number;
    /**
     * Share of the estimated PRs that merged within their estimatedMergeRange (p10 to p90), to the
     * minute as it is shown ("between 14:10 and 15:20"): a merge in the minute of p90 is inside.
     */
    inRange: number;
    /** Share of the estimated PRs that merged later than their estimatedMergeAt. */
    later: number;
  } | null;
  /** CI runs started in the window per PR merged in it, bisection runs included. */
  ciRunsPerMerge: number;
  /** CI time spent (cancelled runs up to their cancellation) per merged PR, in hours. */
  ciHoursPerMerge: number;
  /** Times a PR's testing started over (a group ahead failed, …) in the window. */
  restarts: number;
  restartsPerMerge: number;
  bisectionRuns: number;
  maxQueueDepth: number;
  meanQueueDepth: number;
  /** Merges whose result was not what was tested (the queue's promise broken): must be 0. */
  invariantBreaches: number;
  /** Adaptive mode's window, batch size and measured failure rate at the end; null when it is off. */
  adaptive: AdaptiveStatus | null;
  decisions: number;
  wallMs: number;
}

export interface Series {
  /** Queue depth (PRs in the queue) after each change: [minutes, depth]. */
  depth: [number, number][];
  /** Minutes of every merge. */
  merges: number[];
  windowStart: number;
  windowEnd: number;
}

interface CiSpend {
  startedAt: number;
  minutes: number;
}

export class MetricsCollector {
  readonly merges: number[] = [];
  readonly ciStarts: number[] = [];
  readonly bisectionStarts: number[] = [];
  readonly restarts: number[] = [];
  readonly depth: [number, number][] = [];
  private readonly ciSpend: CiSpend[] = [];
  private readonly queueTimes: { submittedAt: number; minutes: number }[] = [];
  private readonly etaErrors: { submittedAt: number; share: number | null; inRange: boolean; later: boolean }[] = [];
  arrived = 0;
  merged = 0;
  failedBad = 0;
  failedGood = 0;
  mergedBad = 0;
  decisions = 0;

  /** `isBisectionRun` tells the runs of the bisection budget (restarts are counted without their steps). */
  constructor(
    private readonly start: number,
    private readonly isBisectionRun: (runId: string) => boolean,
  ) {}

  minutes(at: number): number {
    return (at - this.start) / MINUTE_MS;
  }

  /**
   * CI time a run used: all of it, or until it was cancelled. A run cancelled the instant it started
   * never ran (with a fixed CI time, results due together arrive one decision apart) and is not counted.
   */
  ciSpent(startedAt: number, minutes: number, bisection: boolean): void {
    if (minutes <= 0) return;
    const at = this.minutes(startedAt);
    (bisection ? this.bisectionStarts : this.ciStarts).push(at);
    this.ciSpend.push({ startedAt: at, minutes });
  }

  queueDepth(at: number, depth: number): void {
    const last = this.depth[this.depth.length - 1];
    if (last && last[1] === depth) return;
    const t = this.minutes(at);
    if (last && last[0] === t) last[1] = depth;
    else this.depth.push([t, depth]);
  }

  /** Restarts of an entry's trip, counted when it leaves the queue (or when the simulation ends). */
  entryRestarts(e: Entry): void {
    for (const t of e.timeline) if (isRestart(t, this.isBisectionRun)) this.restarts.push(this.minutes(t.at));
  }

  /** A terminal entry leaves the simulation. */
  entryDone(
    e: Entry,
    bad: boolean,
    estimatedMergeAt: number | null = null,
    range: { p10: number; p90: number } | null = null,
  ): void {
    this.entryRestarts(e);
    if (e.state === 'MERGED') {
      this.merged++;
      if (bad) this.mergedBad++;
      this.merges.push(this.minutes(e.stateChangedAt));
      this.queueTimes.push({
        submittedAt: this.minutes(e.submittedAt),
        minutes: (e.stateChangedAt - e.submittedAt) / MINUTE_MS,
      });
      const inQueue = e.stateChangedAt - e.submittedAt;
      this.etaErrors.push({
        submittedAt: this.minutes(e.submittedAt),
        share:
          estimatedMergeAt === null || inQueue <= 0 ? null : Math.abs(estimatedMergeAt - e.stateChangedAt) / inQueue,
        inRange: range !== null && withinToTheMinute(range, e.stateChangedAt),
        later: estimatedMergeAt !== null && e.stateChangedAt > estimatedMergeAt,
      });
    } else if (e.state === 'FAILED') {
      if (bad) this.failedBad++;
      else this.failedGood++;
    }
  }

  summarize(args: {
    seed: number;
    warmupMinutes: number;
    windowEnd: number;
    endedAt: number;
    left: number;
    invariantBreaches: number;
    adaptive: AdaptiveStatus | null;
    wallMs: number;
  }): { summary: SimulationSummary; series: Series } {
    const from = args.warmupMinutes;
    const to = args.windowEnd;
    // Events count in [from, to); PRs that arrived in [from, to] give their time in queue.
    const inWindow = (t: number): boolean => t >= from && t < to;
    const arrivedInWindow = (t: number): boolean => t >= from && t <= to;
    const count = (xs: number[]): number => xs.filter(inWindow).length;
    const windowHours = Math.max(to - from, 0) / 60;
    const merges = count(this.merges);
    const perMerge = (x: number): number => (merges > 0 ? x / merges : NaN);
    const runs = count(this.ciStarts) + count(this.bisectionStarts);
    const ciMinutes = this.ciSpend.filter((s) => inWindow(s.startedAt)).reduce((sum, s) => sum + s.minutes, 0);
    const waits = this.queueTimes
      .filter((q) => arrivedInWindow(q.submittedAt))
      .map((q) => q.minutes)
      .sort((a, b) => a - b);
    const restarts = count(this.restarts);
    const etaWindow = this.etaErrors.filter((x) => arrivedInWindow(x.submittedAt));
    const shares = etaWindow.flatMap((x) => (x.share === null ? [] : [x.share])).sort((a, b) => a - b);
    const summary: SimulationSummary = {
      seed: args.seed,
      simulatedHours: this.minutes(args.endedAt) / 60,
      warmupMinutes: from,
      windowHours,
      prs: {
        arrived: this.arrived,
        merged: this.merged,
        failedBad: this.failedBad,
        failedGood: this.failedGood,
        mergedBad: this.mergedBad,
        left: args.left,
      },
      mergesPerHour: windowHours > 0 ? merges / windowHours : NaN,
      timeInQueueMinutes:
        waits.length === 0
          ? null
          : {
              p50: percentile(waits, 50)!,
              p95: percentile(waits, 95)!,
              mean: waits.reduce((a, b) => a + b, 0) / waits.length,
              max: waits[waits.length - 1],
            },
      eta:
        shares.length === 0
          ? null
          : {
              p50: percentile(shares, 50)!,
              p90: percentile(shares, 90)!,
              estimated: shares.length,
              unestimated: etaWindow.length - shares.length,
              inRange: etaWindow.filter((x) => x.share !== null && x.inRange).length / shares.length,
              later: etaWindow.filter((x) => x.share !== null && x.later).length / shares.length,
            },
      ciRunsPerMerge: perMerge(runs),
      ciHoursPerMerge: perMerge(ciMinutes / 60),
      restarts,
      restartsPerMerge: perMerge(restarts),
      bisectionRuns: count(this.bisectionStarts),
      maxQueueDepth: this.depth.reduce((m, [, d]) => Math.max(m, d), 0),
      meanQueueDepth: meanDepth(this.depth, from, to),
      invariantBreaches: args.invariantBreaches,
      adaptive: args.adaptive,
      decisions: this.decisions,
      wallMs: args.wallMs,
    };
    return { summary, series: { depth: this.depth, merges: this.merges, windowStart: from, windowEnd: to } };
  }
}

/** Time-weighted mean of a step function over [from, to]. */
function meanDepth(steps: readonly [number, number][], from: number, to: number): number {
  if (to <= from) return NaN;
  let area = 0;
  for (let i = 0; i < steps.length; i++) {
    const a = Math.max(steps[i][0], from);
    const b = Math.min(i + 1 < steps.length ? steps[i + 1][0] : to, to);
    if (b > a) area += steps[i][1] * (b - a);
  }
  return area / (to - from);
}

/** Whether `at` falls within the range read to the minute: from p10's minute to the end of p90's. */
function withinToTheMinute(range: { p10: number; p90: number }, at: number): boolean {
  const minute = (t: number): number => Math.floor(t / MINUTE_MS);
  return minute(range.p10) <= minute(at) && minute(at) <= minute(range.p90);
}
