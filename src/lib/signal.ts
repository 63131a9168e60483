/**
 * Something happened, told to whoever listens: `emit()` calls every listener, in the order they
 * started listening. What tells need not know who listens, nor be built after them: the composition
 * root breaks a construction cycle with it (a part built first emits, a part built from it listens).
 */
export class Signal {
  private readonly listeners: (() => void)[] = [];

  listen(listener: () => void): void {
    this.listeners.push(listener);
  }

  emit(): void {
    for (const listener of this.listeners) listener();
  }
}
