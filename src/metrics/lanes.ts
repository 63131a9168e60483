/**
 * Lanes of a parallel queue (contract §6.7): the connected components of the admitted PRs under
 * "impacted targets overlap". The overlap rule is the engine's (engine/parallel-graph.ts): `ALL`
 * overlaps every PR with targets, an empty list overlaps nothing, and a PR admitted without targets
 * counts as `ALL`. So one `ALL` PR joins every PR that has targets into one lane.
 */
import type { Entry } from '../engine/types.js';

export interface Lane {
  /** PR number of the lane's first PR in queue order: the lane's name while it lasts. */
  head: number;
  depth: number;
}

/** Lanes of `admitted` (admitted entries in queue order), in the order of their heads. */
export function lanesOf(admitted: readonly Entry[]): Lane[] {
  const parent = admitted.map((_e, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  // Union by the smaller index, so that every root is its lane's first PR in queue order.
  const union = (a: number, b: number): void => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const firstWith = new Map<string, number>();
  let firstNonEmpty = -1;
  let anyAll = false;
  admitted.forEach((e, i) => {
    const targets = e.impactedTargets ?? 'ALL';
    if (targets !== 'ALL' && targets.length === 0) return;
    if (firstNonEmpty < 0) firstNonEmpty = i;
    if (targets === 'ALL') {
      anyAll = true;
      return;
    }
    for (const name of targets) {
      const first = firstWith.get(name);
      if (first === undefined) firstWith.set(name, i);
      else union(first, i);
    }
  });
  if (anyAll) {
    admitted.forEach((e, i) => {
      const targets = e.impactedTargets ?? 'ALL';
      if (targets === 'ALL' || targets.length > 0) union(firstNonEmpty, i);
    });
  }
  const depth = new Map<number, number>();
  admitted.forEach((_e, i) => depth.set(find(i), (depth.get(find(i)) ?? 0) + 1));
  return [...depth].sort(([a], [b]) => a - b).map(([root, n]) => ({ head: admitted[root].prNumber, depth: n }));
}
