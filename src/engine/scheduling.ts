/**
 * Starting test runs (contract §6.1, §6.3, §6.8). Walking the queue in order, each PENDING entry
 * that is not already starting or under bisection forms a group and starts a run while fewer than
 * `concurrency` main runs are in flight (in adaptive mode: the window, adaptive.ts). The run's base is the current target plus everything the
 * group waits on that is not known to be failing (topology.ts, validity.ts `isSkippable`) — except
 * under anti-flake protection (optimistic merging with a pending failure depth), where failing
 * groups ahead stay in the base so that a pass can vouch for them.
 *
 * Parallel mode walks twice: first each lane starts runs up to its share of the slots (LaneShare
 * below), then what is left goes to anyone in queue order. A run started out of queue order pins its
 * entries ahead of those passed over (Topology.pin) and the walk starts again on the new order.
 *
 * Batching (`batch`): a group takes the following eligible entries up to `batchingMinSize` (single
 * mode: consecutive ones; parallel mode: ones in the same lane whose other dependencies the seed
 * shares). `noBatch` entries, and those whose head failed a run on its own (blame.ts), are always
 * alone. A group smaller than the target size waits until `batchingMaxWaitTimeMinutes` passed since
 * its oldest member's admission, except in a draining or mode-switching queue, where nothing new can
 * join, and for entries that were tested before. In adaptive mode the size comes from the measured
 * failure rate and how many PRs wait, and no group waits (adaptive.ts).
 *
 * Urgent PRs (priority 0) pre-empt when no slot is free: the in-flight group with the lowest
 * priority (the latest one on ties) behind it is restarted (SKIP_THE_LINE_INTERRUPTED) and the urgent
 * group takes its place in the order; groups behind that included the restarted one follow it
 * through the validity sweep. No other priority interrupts anything.
 */
import { MINUTE_MS } from '../lib/time.js';
import { batchSize, isAdaptive, mainConcurrency } from './adaptive.js';
import { bisectingSet } from './bisection-state.js';
import { testsAlone } from './blame.js';
import type { Draft } from './draft.js';
import { mayTest } from './freeze.js';
import { screenedSet } from './risk.js';
import { groupKey, isInFlight, isStarting, membersOf, startRun, takesMainSlot } from './runs.js';
import { Lanes } from './parallel-graph.js';
import type { Topology } from './topology.js';
import { dependenciesOf, isSkippable, restartGroup } from './validity.js';
import type { Entry, TestRun } from './types.js';

export interface ScheduleOutcome {
  changed: boolean;
  /** When a batch waiting to fill must start anyway. */
  batchDeadline: number | null;
}

export function schedule(d: Draft, topo: Topology): ScheduleOutcome {
  const outcome: ScheduleOutcome = { changed: false, batchDeadline: null };
  if (d.state === 'PAUSED' || d.targetSha === null) return outcome;
  const bisecting = bisectingSet(d);
  const merging = new Set(d.internal.merge?.prs.map((p) => p.number) ?? []);
  const eligible = (e: Entry): boolean =>
    e.state === 'PENDING' &&
    !isStarting(d, e) &&
    !bisecting.has(e.prNumber) &&
    !merging.has(e.prNumber) &&
    mayTest(d, e);
  let free = mainConcurrency(d) - d.allRuns().filter((r) => takesMainSlot(d, r)).length;
  const taken = new Set<number>();
  // The walk reads the order entry by entry (topo.at): it usually stops after the first few.
  let size: number | null = null; // PRs per group, once a group forms
  // With no free slot only an urgent PR can start (by pre-emption): skip the walk when there is none.
  const urgent = d.allEntries().some((e) => e.skipTheLine && e.state === 'PENDING');
  // Parallel mode: a first walk gives each lane its share of the slots (LaneShare), the second what is left.
  let share: LaneShare | null = null;
  for (const fair of d.config.mode === 'parallel' ? [true, false] : [false]) {
    for (let i = 0; i < topo.size; i++) {
      if (free <= 0 && (fair || !urgent)) break;
      const seed = topo.at(i);
      if (free <= 0 && !seed.skipTheLine) continue;
      if (taken.has(seed.prNumber) || !eligible(seed)) continue;
      if (fair) {
        share ??= new LaneShare(d, topo, eligible);
        if (!share.admits(i)) continue;
      }
      size ??= d.config.batch ? batchSize(d, () => topo.order.filter(eligible).length) : 1;
      const { group, deadline } = formGroup(d, topo, i, size, eligible, taken);
      for (const g of group) taken.add(g.prNumber);
      if (deadline !== null) {
        outcome.batchDeadline = Math.min(outcome.batchDeadline ?? Infinity, deadline);
        continue;
      }
      if (free <= 0) {
        if (preempt(d, group)) return { ...outcome, changed: true };
        continue;
      }
      const moved = start(d, topo, group, bisecting);
      outcome.changed = true;
      free--;
      if (fair) share!.started(seed, moved);
      // Pinning the run's entries out of order moved others: walk the new order from its start.
      if (moved !== null) i = -1;
    }
  }
  return outcome;
}

/**
 * The main slots shared among lanes (parallel mode). Taken in queue order only, the lane whose PRs
 * lead the order takes most of them, and one lane's merges grow less than in proportion to its runs
 * in flight (docs/simulator.md § Benchmark). The lanes are those of the order read so far
 * (parallel-graph.ts `Lanes`); a lane counts when it has main runs in flight or a PR that could
 * start. In the first walk a lane starts runs while it has fewer than ⌈slots / such lanes⌉ in flight
 * and no PR of it was passed over; the second walk gives what is left to anyone in queue order, so no
 * slot idles while a PR could start. The order is read ahead by as many PRs that could start as there
 * are slots, or until as many lanes count (each then gets one).
 */
class LaneShare {
  private readonly lanes = new Lanes((from, into) => this.merge(from, into));
  /** The entries at the positions before this one were added to `lanes`. */
  private read = 0;
  private readonly inFlight = new Map<number, number>();
  private readonly waiting = new Set<number>();
  private readonly passedOver = new Set<number>();
  private counted = 0;
  private readonly slots: number;

  constructor(
    d: Draft,
    private readonly topo: Topology,
    eligible: (e: Entry) => boolean,
  ) {
    this.slots = mainConcurrency(d);
    for (const run of d.allRuns().filter((r) => takesMainSlot(d, r))) {
      const at = run.prNumbers.map((n) => topo.position(n)).find((p) => p >= 0);
      if (at !== undefined) this.addRun(this.laneAt(at));
    }
    // Read ahead as many PRs that could start as there are slots, or until as many lanes count.
    let ahead = 0;
    for (let i = 0; i < topo.size && ahead < this.slots && this.counted < this.slots; i++) {
      if (!eligible(topo.at(i))) continue;
      this.markWaiting(this.laneAt(i));
      ahead++;
    }
  }

  /** Whether the eligible entry at position `i` may start a run in the first walk. */
  admits(i: number): boolean {
    const lane = this.laneAt(i);
    this.markWaiting(lane);
    if (!this.passedOver.has(lane) && this.runs(lane) < Math.ceil(this.slots / this.counted)) return true;
    this.passedOver.add(lane);
    return false;
  }

  /**
   * `seed` started a main run; `moved`: the positions whose entries changed places when the run's
   * entries were pinned (Topology.pin), if any. The entries read stay the same set when the moved
   * ones were all read; the others are read now.
   */
  started(seed: Entry, moved: { from: number; to: number } | null): void {
    this.addRun(this.lanes.laneOf(seed.prNumber));
    if (moved === null || moved.to < this.read) return;
    for (let i = moved.from; i <= moved.to; i++) this.lanes.add(this.topo.at(i));
    this.read = moved.to + 1;
  }

  private laneAt(i: number): number {
    for (; this.read <= i; this.read++) this.lanes.add(this.topo.at(this.read));
    return this.lanes.laneOf(this.topo.at(i).prNumber);
  }

  private runs(lane: number): number {
    return this.inFlight.get(lane) ?? 0;
  }

  private counts(lane: number): boolean {
    return this.runs(lane) > 0 || this.waiting.has(lane);
  }

  private addRun(lane: number): void {
    this.update(lane, () => this.inFlight.set(lane, this.runs(lane) + 1));
  }

  private markWaiting(lane: number): void {
    this.update(lane, () => this.waiting.add(lane));
  }

  /** Applies `change` to `lane`, keeping the count of lanes that count. */
  private update(lane: number, change: () => void): void {
    const before = this.counts(lane);
    change();
    this.counted += Number(this.counts(lane)) - Number(before);
  }

  private merge(from: number, into: number): void {
    const before = Number(this.counts(from)) + Number(this.counts(into));
    this.inFlight.set(into, this.runs(into) + this.runs(from));
    this.inFlight.delete(from);
    for (const set of [this.waiting, this.passedOver]) if (set.delete(from)) set.add(into);
    this.counted += Number(this.counts(into)) - before;
  }
}

function formGroup(
  d: Draft,
  topo: Topology,
  i: number,
  size: number,
  eligible: (e: Entry) => boolean,
  taken: ReadonlySet<number>,
): { group: Entry[]; deadline: number | null } {
  const seed = topo.at(i);
  const group = [seed];
  if (testsAlone(seed) || size <= 1) return { group, deadline: null };
  const joinable = (c: Entry): boolean => eligible(c) && !testsAlone(c) && !taken.has(c.prNumber);
  if (d.config.mode === 'parallel') {
    const inGroup = new Set([seed.prNumber]);
    const shared = new Set(topo.ancestors(seed.prNumber).map((e) => e.prNumber));
    for (const c of topo.successors(seed.prNumber, size, groupKey)) {
      if (group.length >= size) break;
      if (!joinable(c)) continue;
      const deps = topo.ancestors(c.prNumber);
      if (!deps.every((a) => inGroup.has(a.prNumber) || shared.has(a.prNumber))) continue;
      group.push(c);
      inGroup.add(c.prNumber);
    }
  } else {
    const screened = screenedSet(d);
    for (let j = i + 1; j < topo.size && group.length < size; j++) {
      const c = topo.at(j);
      if (screened.has(c.prNumber)) continue; // out of every base until it passed (risk.ts)
      if (!joinable(c)) break;
      group.push(c);
    }
  }
  // Nothing new can join a draining queue; entries tested before (restarted, cleared by bisection) waited
  // already; adaptive mode chose the size from what waits.
  if (group.length >= size || d.state !== 'RUNNING' || isAdaptive(d.config) || group.some((e) => e.runId !== null)) {
    return { group, deadline: null };
  }
  const oldest = Math.min(...group.map((e) => e.admittedAt ?? e.submittedAt));
  const deadline = oldest + d.config.batchingMaxWaitTimeMinutes * MINUTE_MS;
  return { group, deadline: deadline <= d.at ? null : deadline };
}

/** Starts a run for `group`; returns the positions that changed places when what it includes was pinned, if any. */
function start(
  d: Draft,
  topo: Topology,
  group: Entry[],
  bisecting: ReadonlySet<number>,
): { from: number; to: number } | null {
  // Anti-flake (contract §6.6): a failing group ahead stays in the base, so that this run passing
  // can vouch for it; otherwise it is left out, the likely outcome being that it fails.
  const antiFlake = d.config.canOptimisticallyMerge && d.config.pendingFailureDepth > 0;
  const deps = dependenciesOf(topo, group).filter(
    (e) => !bisecting.has(e.prNumber) && (antiFlake || !isSkippable(e, bisecting)),
  );
  // Everything the run includes keeps its position from now on (ordering.ts).
  const pinned = new Set(d.internal.order);
  const fresh = [...deps, ...group].map((e) => e.prNumber).filter((n) => !pinned.has(n));
  d.internal.order.push(...fresh);
  const moved = topo.pin(fresh);
  startRun(d, 'main', deps, group);
  return moved;
}

function preempt(d: Draft, group: Entry[]): boolean {
  const order = d.internal.order;
  const urgentAt = Math.min(
    ...group.map((e) => {
      const p = order.indexOf(e.prNumber);
      return p < 0 ? Infinity : p;
    }),
  );
  let victim: { run: TestRun; members: Entry[]; priority: number; at: number } | null = null;
  for (const run of d.allRuns()) {
    if (run.queueType !== 'main' || !isInFlight(run)) continue;
    const members = membersOf(d, run);
    if (members.length === 0) continue;
    const priority = Math.min(...members.map((m) => m.priorityValue));
    const at = Math.min(...members.map((m) => order.indexOf(m.prNumber)));
    if (priority === 0 || (urgentAt !== Infinity && at < urgentAt)) continue;
    if (!victim || priority > victim.priority || (priority === victim.priority && at > victim.at)) {
      victim = { run, members, priority, at };
    }
  }
  if (!victim) return false;
  const urgent = new Set(group.map((e) => e.prNumber));
  const rest = order.filter((n) => !urgent.has(n));
  const before = rest.indexOf(order[victim.at]);
  d.internal.order = [...rest.slice(0, before), ...group.map((e) => e.prNumber), ...rest.slice(before)];
  d.reordered();
  restartGroup(d, victim.run, victim.members, 'SKIP_THE_LINE_INTERRUPTED');
  return true;
}
