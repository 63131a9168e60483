import type { Bisection } from './working-state.js';
import type { Draft } from './draft.js';

/** PR numbers under bisection (in some part of a failed batch still to be settled). */
export function bisectingSet(d: Draft): Set<number> {
  const out = new Set<number>();
  for (const b of d.internal.bisections) for (const p of b.parts) for (const n of p.prNumbers) out.add(n);
  return out;
}

/** The bisection a bisection run belongs to. */
export function bisectionOfRun(d: Draft, runId: string): Bisection | undefined {
  return d.internal.bisections.find((b) => b.parts.some((p) => p.runId === runId));
}
