/**
 * How often and how fast a failed effect is retried. A thrown error is transient (network, git
 * remote, process); a definite outcome (conflict, CAS lost) is a result, not an error.
 *
 * Budgets follow contract §6.1 (starting a test run: ~3 retries over ~90 s) and §6.2 (merging: about
 * 10 attempts over ~60 s); clean-up work (branch deletion, CI cancel) keeps trying for longer.
 */
import type { Effect } from '../../engine/types.js';

export interface RetryRule {
  maxAttempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const RETRY_RULES: Record<Effect['kind'], RetryRule> = {
  createTestBranch: { maxAttempts: 4, firstDelayMs: 10_000, maxDelayMs: 40_000 },
  startCi: { maxAttempts: 4, firstDelayMs: 10_000, maxDelayMs: 40_000 },
  merge: { maxAttempts: 10, firstDelayMs: 2_000, maxDelayMs: 10_000 },
  cancelCi: { maxAttempts: 8, firstDelayMs: 5_000, maxDelayMs: 300_000 },
  deleteTestBranch: { maxAttempts: 8, firstDelayMs: 5_000, maxDelayMs: 300_000 },
  emitEvent: { maxAttempts: 8, firstDelayMs: 1_000, maxDelayMs: 60_000 },
  scheduleWakeup: { maxAttempts: 8, firstDelayMs: 1_000, maxDelayMs: 60_000 },
};

/** When to try again after `attempts` failed attempts, or null when the budget is spent. */
export function nextAttemptAt(kind: Effect['kind'], attempts: number, now: number): number | null {
  const rule = RETRY_RULES[kind];
  if (attempts >= rule.maxAttempts) return null;
  return now + Math.min(rule.firstDelayMs * 2 ** (attempts - 1), rule.maxDelayMs);
}
