/**
 * The impacted-target graph of parallel mode (contract §6.7). Built in queue order: each admitted
 * entry depends on the earlier still-present entries whose targets overlap its own. `ALL` overlaps
 * everything (a serialisation point); an empty list overlaps nothing, `ALL` included.
 *
 * Only a reduced edge set is stored, enough for the same ancestor closure: per target, the latest
 * earlier entry that has it (which itself depends on the earlier ones), plus the latest `ALL` entry;
 * an `ALL` entry depends on the previous `ALL` entry and every non-empty entry since. Building is
 * O(entries × targets) with a target → latest-entry map, never entries × entries.
 */
import type { Entry } from './types.js';

export class TargetGraph {
  private readonly preds: number[][];
  private readonly children: number[][];

  constructor(private readonly order: readonly Entry[]) {
    this.preds = order.map(() => []);
    this.children = order.map(() => []);
    const lastByTarget = new Map<string, number>();
    let lastAll = -1;
    let sinceAll: number[] = [];
    order.forEach((entry, i) => {
      // An admitted entry without targets (admitted before a switch to parallel) is treated as ALL.
      const targets = entry.impactedTargets ?? 'ALL';
      const preds = new Set<number>();
      if (targets === 'ALL') {
        if (lastAll >= 0) preds.add(lastAll);
        for (const j of sinceAll) preds.add(j);
        lastAll = i;
        sinceAll = [];
      } else if (targets.length > 0) {
        if (lastAll >= 0) preds.add(lastAll);
        for (const t of targets) {
          const j = lastByTarget.get(t);
          if (j !== undefined) preds.add(j);
          lastByTarget.set(t, i);
        }
        sinceAll.push(i);
      }
      for (const j of preds) {
        this.preds[i].push(j);
        this.children[j].push(i);
      }
    });
  }

  /** Positions of every entry `i` transitively depends on, ascending. */
  ancestors(i: number): number[] {
    return closure(i, this.preds, Infinity);
  }

  /** Positions of the entries that depend on `i` within `levels` edges, ascending. */
  descendants(i: number, levels: number): number[] {
    return closure(i, this.children, levels);
  }
}

function closure(start: number, edges: number[][], levels: number): number[] {
  const seen = new Set<number>();
  let frontier = [start];
  for (let depth = 0; depth < levels && frontier.length > 0; depth++) {
    const next: number[] = [];
    for (const i of frontier) {
      for (const j of edges[i]) {
        if (!seen.has(j)) {
          seen.add(j);
          next.push(j);
        }
      }
    }
    frontier = next;
  }
  return [...seen].sort((a, b) => a - b);
}
