/** The one source of time of the application layer, injected so that tests can set it. */
export interface Clock {
  now(): number;
}

/** A clock that also calls back once a time has passed: for adapters that act on a deadline. */
export interface TimerClock extends Clock {
  /** Calls `fn` once, `ms` from now; the returned function cancels the call. */
  after(ms: number, fn: () => void): () => void;
}

/** setTimeout fires at once beyond 2^31-1 ms (about 25 days): longer waits are capped there. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

export const systemClock: TimerClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, Math.min(Math.max(0, ms), LONGEST_TIMEOUT_MS));
    return () => clearTimeout(timer);
  },
};

/** A clock that only moves when told to: for tests and the simulator. Due callbacks run as it moves. */
export class ManualClock implements TimerClock {
  private timers: { at: number; fn: () => void }[] = [];

  constructor(private t = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    this.t = t;
    const due = this.timers.filter((timer) => timer.at <= t).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((timer) => timer.at > t);
    for (const timer of due) timer.fn();
  }
  advance(ms: number): void {
    this.set(this.t + ms);
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }
}
