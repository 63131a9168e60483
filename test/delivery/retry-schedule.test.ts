/** The retry schedule shared by every outbox: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then given up. */
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, nextAttemptAt } from '../../src/delivery/retry-schedule.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('the retry schedule', () => {
  it('waits longer after each failed attempt and gives up after the eighth', () => {
    const at = 1_000_000;
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => nextAttemptAt(i + 1, at)).map((next) =>
      next === null ? null : next - at,
    );
    expect(delays).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, null]);
    expect(nextAttemptAt(MAX_ATTEMPTS + 1, at)).toBeNull();
  });
});
