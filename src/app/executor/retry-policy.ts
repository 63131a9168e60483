/**
 * How often and how fast a failed effect is retried. A thrown error is transient (network, git
 * remote, process); a definite outcome (conflict, CAS lost) is a result, not an error.
 *
 * Budgets follow contract §6.1 (starting a test run: ~3 retries over ~90 s) and §6.2 (merging: about
 * 10 attempts over ~60 s); clean-up work (branch deletion, CI cancel) keeps trying for longer.
 *
 * The delay doubles from `firstDelayMs` up to `maxDelayMs`, then is spread by a random factor in
 * [0.5, 1.5), as graphile-worker's `calculateDelay` does: effects that failed together (a forge
 * outage fails every queue's merge at once) come back at different times instead of as one herd.
 * On average the budgets above hold; one delay is at least half and less than one and a half times
 * the rule's.
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
  retryCi: { maxAttempts: 4, firstDelayMs: 10_000, maxDelayMs: 40_000 },
  merge: { maxAttempts: 10, firstDelayMs: 2_000, maxDelayMs: 10_000 },
  cancelCi: { maxAttempts: 8, firstDelayMs: 5_000, maxDelayMs: 300_000 },
  deleteTestBranch: { maxAttempts: 8, firstDelayMs: 5_000, maxDelayMs: 300_000 },
  emitEvent: { maxAttempts: 8, firstDelayMs: 1_000, maxDelayMs: 60_000 },
  scheduleWakeup: { maxAttempts: 8, firstDelayMs: 1_000, maxDelayMs: 60_000 },
};

/**
 * When to try again after `attempts` failed attempts, or null when the budget is spent. `random`
 * returns a number in [0, 1), as Math.random does.
 */
export function nextAttemptAt(
  kind: Effect['kind'],
  attempts: number,
  now: number,
  random: () => number = Math.random,
): number | null {
  const rule = RETRY_RULES[kind];
  if (attempts >= rule.maxAttempts) return null;
  const delay = Math.min(rule.firstDelayMs * 2 ** (attempts - 1), rule.maxDelayMs);
  return now + Math.floor(delay * (0.5 + random()));
}
