/** The agenda: earliest first, and items due together in the order they were scheduled. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventHeap } from '../../src/sim/event-heap.js';

describe('EventHeap', () => {
  it('pops by time, then by insertion order, for any sequence of pushes and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(null)), { maxLength: 200 }), (ops) => {
        const heap = new EventHeap<number>();
        const model: { at: number; id: number }[] = [];
        let id = 0;
        for (const op of ops) {
          if (op === null) {
            model.sort((a, b) => a.at - b.at || a.id - b.id);
            const want = model.shift();
            const got = heap.pop();
            expect(got && { at: got.at, id: got.item }).toEqual(want && { at: want.at, id: want.id });
          } else {
            heap.push(op, id);
            model.push({ at: op, id: id++ });
          }
          expect(heap.size).toBe(model.length);
          expect(heap.peekTime()).toBe(model.length ? Math.min(...model.map((m) => m.at)) : Infinity);
        }
      }),
    );
  });
});
