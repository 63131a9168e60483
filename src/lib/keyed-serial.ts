/**
 * Work that takes turns per key: `run(key, work)` starts `work` once every earlier piece of work of
 * the same key has settled (fulfilled or rejected); work of different keys runs side by side. A key
 * is forgotten once its last piece of work has settled.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const done = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = done.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return done;
  }

  /** How many keys have work pending. */
  get size(): number {
    return this.tails.size;
  }
}
