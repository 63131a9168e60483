/**
 * The impacted-target graph of parallel mode (contract §6.7). An admitted entry depends on the
 * earlier still-present entries whose targets overlap its own. `ALL` overlaps everything (a
 * serialisation point); an empty list overlaps nothing, `ALL` included.
 *
 * Nothing is built per pair of entries: a target → entries index (independent of the order, so it
 * survives reordering) answers "who else has this target", and the positions in the current order
 * tell earlier from later. An `ALL` entry's predecessors are reduced to the previous `ALL` entry and
 * the non-empty entries since, which is the same closure. Closures are computed only for the
 * entries asked about.
 */
import type { Entry, ImpactedTargets } from './types.js';

/**
 * The targets two entries' targets share, by the rules above (no targets counts as `ALL`); `['ALL']`
 * when both are `ALL`; null when they do not overlap.
 */
export function sharedTargets(a: ImpactedTargets | null, b: ImpactedTargets | null): string[] | null {
  const x = a ?? 'ALL';
  const y = b ?? 'ALL';
  if ((x !== 'ALL' && x.length === 0) || (y !== 'ALL' && y.length === 0)) return null;
  if (x === 'ALL') return y === 'ALL' ? ['ALL'] : [...y];
  if (y === 'ALL') return [...x];
  const shared = x.filter((t) => y.includes(t));
  return shared.length > 0 ? shared : null;
}

/**
 * Target → PR numbers of the entries that have it. It may hold entries that are not admitted; the
 * graph only follows those with a position in the order. Built on first use: questions about the
 * front of the queue are answered by a scan of the positions ahead instead (TargetGraph.preds).
 */
export class TargetIndex {
  private built: Map<string, number[]> | null = null;

  constructor(private readonly entries: readonly Entry[]) {}

  get isBuilt(): boolean {
    return this.built !== null;
  }

  get byTarget(): ReadonlyMap<string, readonly number[]> {
    if (this.built) return this.built;
    const byTarget = new Map<string, number[]>();
    for (const e of this.entries) {
      // An admitted entry without targets (admitted before a switch to parallel) counts as ALL.
      const t = e.impactedTargets ?? 'ALL';
      if (t === 'ALL') continue;
      for (const name of t) {
        const list = byTarget.get(name);
        if (list) list.push(e.prNumber);
        else byTarget.set(name, [e.prNumber]);
      }
    }
    this.built = byTarget;
    return byTarget;
  }
}

export class TargetGraph {
  /** Positions of `ALL` entries, ascending. */
  private alls: number[] = [];
  /** Positions read by scans instead of the index (see `preds`). */
  private scanned = 0;

  constructor(
    private readonly index: TargetIndex,
    private readonly numbers: readonly number[],
    /** Positions by PR number (asked for only when the index is used). */
    private readonly positions: () => ReadonlyMap<number, number>,
    /** An entry's impacted targets by PR number, as they are now (none: `ALL`). */
    private readonly targetsOf: (prNumber: number) => ImpactedTargets | null,
  ) {
    numbers.forEach((_n, i) => {
      if (this.targetsAt(i) === 'ALL') this.alls.push(i);
    });
  }

  /** The entries at positions `from` to `to` changed places among themselves (Topology.pin). */
  reordered(from: number, to: number): void {
    const inside: number[] = [];
    for (let i = from; i <= to; i++) if (this.targetsAt(i) === 'ALL') inside.push(i);
    this.alls = [...this.alls.filter((i) => i < from), ...inside, ...this.alls.filter((i) => i > to)];
  }

  private targetsAt(i: number): ImpactedTargets {
    return this.targetsOf(this.numbers[i]) ?? 'ALL';
  }

  private isEmpty(i: number): boolean {
    const t = this.targetsAt(i);
    return t !== 'ALL' && t.length === 0;
  }

  /** The latest `ALL` position before i, or -1. */
  private lastAllBefore(i: number): number {
    let lo = 0;
    let hi = this.alls.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.alls[mid] < i) {
        found = this.alls[mid];
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private preds(i: number): number[] {
    const t = this.targetsAt(i);
    if (t !== 'ALL' && t.length === 0) return [];
    const last = this.lastAllBefore(i);
    const out = last >= 0 ? [last] : [];
    if (t === 'ALL') {
      for (let j = last + 1; j < i; j++) if (!this.isEmpty(j)) out.push(j);
      return out;
    }
    // Near the front, the positions ahead are read instead of building the index; once the scans
    // have read as many positions as the order holds, the index is built (as Topology.position does).
    if (!this.index.isBuilt && this.scanned + i <= this.numbers.length) {
      this.scanned += i;
      const own = new Set(t);
      for (let j = 0; j < i; j++) {
        const other = this.targetsAt(j);
        if (other !== 'ALL' && other.some((name) => own.has(name))) out.push(j);
      }
      return out;
    }
    const pos = this.positions();
    for (const name of t) {
      for (const n of this.index.byTarget.get(name) ?? []) {
        const j = pos.get(n);
        if (j !== undefined && j < i) out.push(j);
      }
    }
    return out;
  }

  private children(i: number): number[] {
    const t = this.targetsAt(i);
    if (t !== 'ALL' && t.length === 0) return [];
    const out: number[] = [];
    if (t === 'ALL') {
      const next = this.alls.find((a) => a > i) ?? this.numbers.length;
      for (let j = i + 1; j < next; j++) if (!this.isEmpty(j)) out.push(j);
      if (next < this.numbers.length) out.push(next);
      return out;
    }
    const nextAll = this.alls.find((a) => a > i);
    if (nextAll !== undefined) out.push(nextAll); // later ALL entries depend on it through this one
    const pos = this.positions();
    for (const name of t) {
      for (const n of this.index.byTarget.get(name) ?? []) {
        const j = pos.get(n);
        if (j !== undefined && j > i) out.push(j);
      }
    }
    return out;
  }

  /** Positions of every entry `i` transitively depends on, ascending. */
  ancestors(i: number): number[] {
    return closure(i, (j) => this.preds(j), Infinity);
  }

  /**
   * Positions `i` depends on directly, ascending: its predecessors but those another predecessor
   * depends on (the transitive reduction of the graph).
   */
  directlyAhead(i: number): number[] {
    const preds = [...new Set(this.preds(i))].sort((a, b) => b - a);
    const through = new Set<number>();
    const out: number[] = [];
    // From the nearest: a predecessor that is an ancestor of a nearer one is reached through it.
    for (const j of preds) {
      if (through.has(j)) continue;
      out.push(j);
      for (const k of this.ancestors(j)) through.add(k);
    }
    return out.sort((a, b) => a - b);
  }

  /** Positions of the entries that depend on `i` within `levels` edges, ascending. */
  descendants(i: number, levels: number): number[] {
    return closure(i, (j) => this.children(j), levels);
  }
}

/**
 * The lanes of the entries added so far: the connected components of the graph above among them (an
 * entry added later may join two). Union-find over PR numbers, each entry joined to the first entry
 * added with each of its targets, and an `ALL` entry to every lane of overlapping entries. A lane is
 * named by its entry added first; `merged` hears when a lane joins another.
 */
export class Lanes {
  private readonly parent = new Map<number, number>();
  /** When each entry was added (union keeps the earlier one as the lane's name). */
  private readonly added = new Map<number, number>();
  private readonly firstWith = new Map<string, number>();
  /** The lanes of the overlapping (not empty) entries added so far. */
  private readonly overlapping = new Set<number>();
  private allAdded = false;

  constructor(private readonly merged: (from: number, into: number) => void = () => {}) {}

  has(prNumber: number): boolean {
    return this.parent.has(prNumber);
  }

  add(e: Entry): void {
    const n = e.prNumber;
    if (this.parent.has(n)) return;
    this.parent.set(n, n);
    this.added.set(n, this.added.size);
    const t = e.impactedTargets ?? 'ALL';
    if (t !== 'ALL' && t.length === 0) return;
    this.overlapping.add(n);
    if (t === 'ALL') this.allAdded = true;
    else {
      for (const name of t) {
        const first = this.firstWith.get(name);
        if (first === undefined) this.firstWith.set(name, n);
        else this.union(first, n);
      }
    }
    if (this.allAdded) for (const lane of [...this.overlapping]) this.union(lane, n);
  }

  /** The lane of an entry added. */
  laneOf(prNumber: number): number {
    let n = prNumber;
    for (let up = this.parent.get(n)!; up !== n; up = this.parent.get(n)!) {
      const grand = this.parent.get(up)!;
      this.parent.set(n, grand);
      n = grand;
    }
    return n;
  }

  private union(a: number, b: number): void {
    const [ra, rb] = [this.laneOf(a), this.laneOf(b)];
    if (ra === rb) return;
    const [into, from] = this.added.get(ra)! < this.added.get(rb)! ? [ra, rb] : [rb, ra];
    this.parent.set(from, into);
    this.overlapping.delete(from);
    this.merged(from, into);
  }
}

/**
 * For each entry of `admitted` (queue order), the PR number of its lane's first entry. Lanes are the
 * connected components of the graph above: entries whose targets overlap, transitively.
 */
export function laneHeads(admitted: readonly Entry[]): number[] {
  const lanes = new Lanes();
  for (const e of admitted) lanes.add(e);
  return admitted.map((e) => lanes.laneOf(e.prNumber));
}

function closure(start: number, edges: (i: number) => number[], levels: number): number[] {
  const seen = new Set<number>();
  let frontier = [start];
  for (let depth = 0; depth < levels && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const i of frontier) {
      for (const j of edges(i)) {
        if (j !== start && !seen.has(j)) {
          seen.add(j);
          next.push(j);
        }
      }
    }
    frontier = next;
  }
  return [...seen].sort((a, b) => a - b);
}
