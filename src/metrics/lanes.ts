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
  const depth = new Map<number, number>();
  for (const head of laneHeads(admitted)) depth.set(head, (depth.get(head) ?? 0) + 1);
  const position = new Map(admitted.map((e, i) => [e.prNumber, i]));
  return [...depth].sort(([a], [b]) => position.get(a)! - position.get(b)!).map(([head, n]) => ({ head, depth: n }));
}

/** For each entry of `admitted` (queue order), the PR number of its lane's head. */
export function laneHeads(admitted: readonly Entry[]): number[] {
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
  return admitted.map((_e, i) => admitted[find(i)].prNumber);
}
