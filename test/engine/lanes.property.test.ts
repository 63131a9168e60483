/**
 * laneHeads and the parallel-mode graph are one rule: two admitted PRs share a lane exactly when the
 * graph connects them (one depends on the other, transitively, in either direction or through others).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { laneHeads } from '../../src/engine/index.js';
import { TargetGraph, TargetIndex } from '../../src/engine/parallel-graph.js';
import type { Entry, ImpactedTargets } from '../../src/engine/types.js';

const targets: fc.Arbitrary<ImpactedTargets | null> = fc.oneof(
  fc.constant('ALL' as const),
  fc.constant(null),
  fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 3 }),
);

/** For each position, the PR number of the first entry connected to it by the graph's edges. */
function componentsOf(admitted: readonly Entry[]): number[] {
  const numbers = admitted.map((e) => e.prNumber);
  const pos = new Map(numbers.map((n, i) => [n, i]));
  const graph = new TargetGraph(
    new TargetIndex(admitted),
    numbers,
    () => pos,
    (n) => admitted[pos.get(n)!]!.impactedTargets,
  );
  const first = numbers.map((_n, i) => i);
  // Components of the undirected graph: merge each entry with its ancestors until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    admitted.forEach((_e, i) => {
      for (const j of graph.ancestors(i)) {
        const low = Math.min(first[i], first[j]);
        if (first[i] !== low || first[j] !== low) {
          for (let k = 0; k < first.length; k++) if (first[k] === first[i] || first[k] === first[j]) first[k] = low;
          changed = true;
        }
      }
    });
  }
  return first.map((i) => numbers[i]);
}

describe('laneHeads', () => {
  it('puts two PRs in one lane exactly when the parallel-mode graph connects them', () => {
    fc.assert(
      fc.property(fc.array(targets, { maxLength: 12 }), (list) => {
        const admitted = list.map((impactedTargets, i) => ({ prNumber: 100 - i, impactedTargets }) as Entry);
        expect(laneHeads(admitted)).toEqual(componentsOf(admitted));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the parallel-mode graph', () => {
  it('answers the same near the front, where it scans the positions ahead, as where it asks the target index', () => {
    const graphOf = (admitted: readonly Entry[], indexFirst: boolean): TargetGraph => {
      const numbers = admitted.map((e) => e.prNumber);
      const pos = new Map(numbers.map((n, i) => [n, i]));
      const index = new TargetIndex(admitted);
      if (indexFirst) expect(index.byTarget).toBeDefined();
      return new TargetGraph(
        index,
        numbers,
        () => pos,
        (n) => admitted[pos.get(n)!]!.impactedTargets,
      );
    };
    fc.assert(
      fc.property(fc.array(targets, { maxLength: 12 }), fc.nat(11), (list, at) => {
        const admitted = list.map((impactedTargets, i) => ({ prNumber: 100 - i, impactedTargets }) as Entry);
        const i = Math.min(at, admitted.length - 1);
        if (i < 0) return;
        const scanned = graphOf(admitted, false);
        const indexed = graphOf(admitted, true);
        expect(scanned.ancestors(i)).toEqual(indexed.ancestors(i));
        expect(scanned.directlyAhead(i)).toEqual(indexed.directlyAhead(i));
      }),
      { numRuns: 500 },
    );
  });
});
