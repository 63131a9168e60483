/**
 * Lanes of a parallel queue (contract §6.7): the connected components of the admitted PRs under
 * "impacted targets overlap". The rule is the engine's (`laneHeads`, engine/parallel-graph.ts).
 */
import { laneHeads } from '../engine/index.js';
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
