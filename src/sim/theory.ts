/**
 * First-order queue theory the simulator is checked against (shared QUEUE-THEORY §3.2, speculative
 * chain): with N runs in flight, each on top of the ones ahead, a failure at position k merges the
 * k − 1 ahead of it and restarts everything behind, so per round of one CI time T
 *
 *   merges per T ≈ q(1 − q^N)/p        CI runs per merge ≈ N·p / (q(1 − q^N))        (q = 1 − p)
 *
 * The model evicts a failing PR at once (pendingFailureDepth 0, no optimistic merging) and assumes
 * the queue never runs dry.
 */
export function chainMergesPerCi(p: number, n: number): number {
  if (p === 0) return n;
  const q = 1 - p;
  return (q * (1 - q ** n)) / p;
}

export function chainRunsPerMerge(p: number, n: number): number {
  return n / chainMergesPerCi(p, n);
}
