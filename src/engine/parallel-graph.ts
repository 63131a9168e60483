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
  private readonly alls: number[] = [];
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
 * For each entry of `admitted` (queue order), the PR number of its lane's first entry. Lanes are the
 * connected components of the graph above: entries whose targets overlap, transitively.
 */
export function laneHeads(admitted: readonly Entry[]): number[] {
  const index = new TargetIndex(admitted);
  const parent = admitted.map((_e, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // Union by the smaller index, so that every root is its lane's first entry in queue order.
  const union = (a: number, b: number): void => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const pos = new Map(admitted.map((e, i) => [e.prNumber, i]));
  for (const numbers of index.byTarget.values()) {
    for (const n of numbers.slice(1)) union(pos.get(numbers[0])!, pos.get(n)!);
  }
  const overlapping = admitted.flatMap((e, i) => {
    const t = e.impactedTargets ?? 'ALL';
    return t === 'ALL' || t.length > 0 ? [i] : [];
  });
  if (admitted.some((e) => (e.impactedTargets ?? 'ALL') === 'ALL')) {
    for (const i of overlapping) union(overlapping[0], i);
  }
  return admitted.map((_e, i) => admitted[find(i)].prNumber);
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
