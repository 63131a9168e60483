/**
 * Who waits on whom. Single mode is one line: an entry waits on every admitted entry ahead of it.
 * Parallel mode waits only on graph ancestors (parallel-graph.ts). Everything else in the engine
 * asks this one question through `Topology`, so both modes share one scheduling, failure and merge
 * logic.
 */
import type { Draft } from './draft.js';
import { admittedOrder, comparePending, isAdmitted, queueOrder, sortedAdmitted } from './ordering.js';
import { TargetGraph, TargetIndex } from './parallel-graph.js';
import type { Entry, QueueSnapshot } from './types.js';

/**
 * Target indexes by the entries array they were built from. A decision's output entries are the
 * next decision's input when the caller keeps the snapshot in memory, so the index (the costly part
 * of a parallel-mode pass) carries over while no targets change. A memo only: same results without it.
 */
const INDEXES = new WeakMap<readonly Entry[], TargetIndex>();

/**
 * Admitted entries sorted by the pending key (ordering.ts), by the entries array they were sorted
 * from; the same kind of memo: the next decision re-sorts only the entries whose keys changed.
 */
const SORTED = new WeakMap<readonly Entry[], Entry[]>();

/** Remembers the index and the sorted entries for a decision's output entries, if they still describe them. */
export function rememberIndex(d: Draft, entries: readonly Entry[]): void {
  const cache = d.topologyCache;
  if (cache.index && cache.targets === d.targets) INDEXES.set(entries, cache.index as TargetIndex);
  if (cache.sorted && d.resortPending.size === 0) SORTED.set(entries, cache.sorted);
}

/**
 * The draft's admitted entries sorted by the pending key: the last sorted list (this decision's, or
 * the one remembered for its input) with the entries added or re-keyed since taken out and put back
 * in place by binary search; a full sort when there is no such list.
 */
function sortedNow(d: Draft): Entry[] {
  const before = d.topologyCache.sorted ?? SORTED.get(d.base.entries);
  const moved = d.resortPending;
  if (!before) {
    moved.clear();
    return sortedAdmitted(d.allEntries());
  }
  const sorted = moved.size === 0 ? before : before.filter((e) => !moved.has(e.prNumber));
  for (const n of moved) {
    const e = d.entry(n);
    if (!e || !isAdmitted(e)) continue;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (comparePending(sorted[mid], e) < 0) lo = mid + 1;
      else hi = mid;
    }
    sorted.splice(lo, 0, e);
  }
  moved.clear();
  return sorted;
}

export class Topology {
  /** Positions by PR number: built once scans have cost as much (see `position`). */
  private posMap: Map<number, number> | null = null;
  private scanned = 0;
  private graph: TargetGraph | null = null;

  private constructor(
    private readonly parallel: boolean,
    private readonly numbers: number[],
    private pinnedCount: number,
    private readonly index: TargetIndex | null,
    private readonly lookup: (prNumber: number) => Entry,
  ) {}

  /**
   * The draft's topology, rebuilt only when the queue's shape changed (draft.ts `structure`); the
   * entries it hands out are always the draft's current ones.
   */
  static of(d: Draft): Topology {
    const cache = d.topologyCache;
    if (cache.structure === d.structure) return cache.topology as Topology;
    const parallel = d.config.mode === 'parallel';
    if (cache.membership !== d.membership) {
      cache.membership = d.membership;
      cache.sorted = sortedNow(d);
    }
    if (parallel && (cache.targets !== d.targets || cache.index === null)) {
      cache.targets = d.targets;
      cache.index = (d.targets === 0 ? INDEXES.get(d.base.entries) : undefined) ?? new TargetIndex(d.allEntries());
    }
    const order = admittedOrder(cache.sorted ?? [], d.internal.order, (n) => d.entry(n));
    const pinned = new Set(d.internal.order);
    let started = 0;
    while (started < order.length && pinned.has(order[started].prNumber)) started++;
    const topo = new Topology(
      parallel,
      order.map((e) => e.prNumber),
      started,
      parallel ? (cache.index as TargetIndex) : null,
      (n) => d.entry(n)!,
    );
    cache.structure = d.structure;
    cache.topology = topo;
    return topo;
  }

  /** Admitted entries in queue order, as they are now. */
  get order(): Entry[] {
    return this.numbers.map(this.lookup);
  }

  get size(): number {
    return this.numbers.length;
  }

  /** The entry at a position, as it is now. */
  at(i: number): Entry {
    return this.lookup(this.numbers[i]);
  }

  /** How many entries at the front have a pinned position. */
  get pinned(): number {
    return this.pinnedCount;
  }

  /**
   * `prs`, unpinned entries, were pinned in this order after the pinned front (scheduling.ts): the
   * order is updated in place as a rebuild would make it, instead of rebuilding it. Returns the
   * positions whose entries changed places, if any (none when `prs` were the next ones already).
   */
  pin(prs: readonly number[]): { from: number; to: number } | null {
    const from = this.pinnedCount;
    this.pinnedCount += prs.length;
    if (prs.every((n, k) => this.numbers[from + k] === n)) return null;
    const to = Math.max(...prs.map((n) => this.position(n)));
    const pinned = new Set(prs);
    const rest = this.numbers.slice(from, to + 1).filter((n) => !pinned.has(n));
    [...prs, ...rest].forEach((n, k) => {
      this.numbers[from + k] = n;
      this.posMap?.set(n, from + k);
    });
    this.graph?.reordered(from, to);
    return { from, to };
  }

  /**
   * The front of the order whose positions are pinned: every entry that started testing this trip.
   * Only these can be TESTING, TESTS_PASSED, PENDING_FAILURE or have a run being built.
   */
  get started(): Entry[] {
    return this.numbers.slice(0, this.pinnedCount).map(this.lookup);
  }

  /**
   * Most questions are about the front of the queue, where a scan of the order answers quickly; once
   * the scans together have read as many positions as the order holds, the positions are indexed.
   */
  position(prNumber: number): number {
    if (this.posMap) return this.posMap.get(prNumber) ?? -1;
    const i = this.numbers.indexOf(prNumber);
    this.scanned += i < 0 ? this.numbers.length : i + 1;
    if (this.scanned > this.numbers.length) this.indexPositions();
    return i;
  }

  private indexPositions(): Map<number, number> {
    if (!this.posMap) {
      const pos = new Map<number, number>();
      this.numbers.forEach((n, i) => {
        pos.set(n, i);
      });
      this.posMap = pos;
    }
    return this.posMap;
  }

  /** Admitted entries `prNumber` waits on, in queue order (not including itself). */
  ancestors(prNumber: number): Entry[] {
    const i = this.position(prNumber);
    if (i < 0) return [];
    if (!this.parallel) return this.numbers.slice(0, i).map(this.lookup);
    return this.targetGraph()
      .ancestors(i)
      .map((j) => this.lookup(this.numbers[j]));
  }

  /** Admitted entries waiting on `prNumber` within `levels` levels of groups, in queue order. */
  successors(prNumber: number, levels: number, groupOf: (e: Entry) => string): Entry[] {
    const i = this.position(prNumber);
    if (i < 0 || levels <= 0) return [];
    if (this.parallel)
      return this.targetGraph()
        .descendants(i, levels)
        .map((j) => this.lookup(this.numbers[j]));
    const own = groupOf(this.lookup(this.numbers[i]));
    const seen = new Set<string>();
    const out: Entry[] = [];
    for (let j = i + 1; j < this.numbers.length; j++) {
      const e = this.lookup(this.numbers[j]);
      const g = groupOf(e);
      if (g === own) continue;
      if (!seen.has(g)) {
        if (seen.size === levels) break;
        seen.add(g);
      }
      out.push(e);
    }
    return out;
  }

  private targetGraph(): TargetGraph {
    this.graph ??= new TargetGraph(
      this.index!,
      this.numbers,
      () => this.indexPositions(),
      (n) => this.lookup(n).impactedTargets,
    );
    return this.graph;
  }
}

/**
 * The admitted entries of a committed queue in queue order, each with the entries directly ahead of
 * it: what it waits on (as `Topology.ancestors`), without those it waits on only through another.
 * Single mode: the entry just ahead. Parallel mode: the earlier entries whose targets overlap its
 * own, transitively reduced. Every edge goes from an earlier position to a later one of one order,
 * so the graph has no cycle.
 */
export function dependencyGraph(snapshot: QueueSnapshot): { order: Entry[]; directlyAhead: Entry[][] } {
  const order = queueOrder(snapshot, { includeNotReady: false });
  if (snapshot.config.mode !== 'parallel')
    return { order, directlyAhead: order.map((_e, i) => (i === 0 ? [] : [order[i - 1]])) };
  const pos = new Map(order.map((e, i) => [e.prNumber, i]));
  const graph = new TargetGraph(
    new TargetIndex(order),
    order.map((e) => e.prNumber),
    () => pos,
    (n) => order[pos.get(n)!]!.impactedTargets,
  );
  return { order, directlyAhead: order.map((_e, i) => graph.directlyAhead(i).map((j) => order[j])) };
}
