/** The manual clock calls back what is due as it moves, in time order; a cancelled call never comes. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';

describe('ManualClock', () => {
  it('calls back each due callback once, in time order, as it moves', () => {
    const clock = new ManualClock(1_000);
    const calls: string[] = [];
    clock.after(300, () => calls.push(`b at ${clock.now()}`));
    clock.after(100, () => calls.push(`a at ${clock.now()}`));
    clock.after(900, () => calls.push('c'));
    clock.advance(299);
    expect(calls).toEqual(['a at 1299']);
    clock.set(1_300);
    expect(calls).toEqual(['a at 1299', 'b at 1300']);
    clock.advance(10_000);
    expect(calls).toEqual(['a at 1299', 'b at 1300', 'c']);
  });

  it('forgets a cancelled callback', () => {
    const clock = new ManualClock();
    const calls: string[] = [];
    const cancel = clock.after(10, () => calls.push('cancelled'));
    clock.after(20, () => calls.push('kept'));
    cancel();
    clock.advance(30);
    expect(calls).toEqual(['kept']);
  });
});
