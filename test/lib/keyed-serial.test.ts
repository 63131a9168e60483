/** Work that takes turns per key. */
import { describe, expect, it } from 'vitest';
import { KeyedSerial } from '../../src/lib/keyed-serial.js';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

describe('KeyedSerial', () => {
  it('starts the work of one key after the earlier work of that key has settled, a failure included', async () => {
    const chains = new KeyedSerial();
    const log: string[] = [];
    const first = gate();
    const a = chains.run('q', async () => {
      log.push('a starts');
      await first.promise;
      log.push('a ends');
      throw new Error('a failed');
    });
    const b = chains.run('q', async () => {
      log.push('b runs');
      return 'b';
    });
    await Promise.resolve();
    expect(log).toEqual(['a starts']);
    first.open();
    await expect(a).rejects.toThrow('a failed');
    await expect(b).resolves.toBe('b');
    expect(log).toEqual(['a starts', 'a ends', 'b runs']);
  });

  it('runs the work of different keys side by side and forgets a key once its work has settled', async () => {
    const chains = new KeyedSerial();
    const held = gate();
    const slow = chains.run('one', () => held.promise);
    expect(chains.size).toBe(1);
    await chains.run('two', async () => undefined); // does not wait for key "one"
    held.open();
    await slow;
    await new Promise((resolve) => setImmediate(resolve));
    expect(chains.size).toBe(0);
  });
});
