/**
 * The simulator's agenda: timed items in a binary min-heap ordered by time, then by insertion, so
 * items due at the same moment come out in the order they were scheduled (deterministic ties).
 */
interface Slot<T> {
  at: number;
  seq: number;
  item: T;
}

export class EventHeap<T> {
  private readonly heap: Slot<T>[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  push(at: number, item: T): void {
    const h = this.heap;
    h.push({ at, seq: this.seq++, item });
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  /** The earliest item and its time, or undefined when empty. */
  pop(): { at: number; item: T } | undefined {
    const h = this.heap;
    if (h.length === 0) return undefined;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return { at: top.at, item: top.item };
  }

  /** Every item with its time, in the order they were pushed: a heap fed them keeps their ties as they were. */
  items(): { at: number; item: T }[] {
    return [...this.heap].sort((a, b) => a.seq - b.seq).map(({ at, item }) => ({ at, item }));
  }

  /** Time of the earliest item, or Infinity when empty. */
  peekTime(): number {
    return this.heap.length > 0 ? this.heap[0].at : Infinity;
  }
}

const before = <T>(a: Slot<T>, b: Slot<T>): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);
