/** A signal told to whoever listens. */
import { describe, expect, it } from 'vitest';
import { Signal } from '../../src/lib/signal.js';

describe('Signal', () => {
  it('calls every listener at each emit, in the order they started listening', () => {
    const signal = new Signal();
    const heard: string[] = [];
    signal.emit();
    signal.listen(() => heard.push('a'));
    signal.listen(() => heard.push('b'));
    signal.emit();
    signal.emit();
    expect(heard).toEqual(['a', 'b', 'a', 'b']);
  });
});
