/**
 * When a message is tried again after a failed attempt, as Svix does: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h after the previous attempt (8 attempts in all, the first immediately), then it is given
 * up. The same schedule for every outbox.
 */
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../lib/time.js';

/** Delay before attempt n + 2 after attempt n + 1 failed (the first attempt is immediate). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** When to try again after the `attempts`-th attempt failed at `now`; null: give the message up. */
export function nextAttemptAt(attempts: number, now: number): number | null {
  return attempts >= MAX_ATTEMPTS ? null : now + RETRY_DELAYS_MS[attempts - 1]!;
}
