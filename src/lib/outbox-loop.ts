/**
 * The wake-up loop of an outbox worker (the effect runner, the webhook delivery worker). `wake()`
 * runs a round now, or once more after the round in progress; after a round the loop sleeps until the
 * next row is due, at most `idlePollMs` (other instances may add rows meanwhile). Timers only wake it:
 * the work and its schedule are rows in the database.
 */
import type { Clock } from './clock.js';

export interface OutboxLoopOptions {
  /** Does the work that is due now. */
  round: () => Promise<void>;
  /** When the next row is due, or null when none is pending. */
  nextDueAt: () => Promise<number | null>;
  clock: Clock;
  /** Longest sleep between rounds; default 5 s. */
  idlePollMs?: number;
  /** Told when a round throws; the loop goes on. */
  onError: (err: unknown) => void;
}

export class OutboxLoop {
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(private readonly opts: OutboxLoopOptions) {}

  /** False once stopped (rounds in progress may check it to stop early). */
  get running(): boolean {
    return !this.stopped;
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops waking up and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.looking;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.looking = this.look().finally(() => {
      this.looking = null;
    });
  }

  private async look(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.opts.round();
      } catch (err) {
        this.opts.onError(err);
      }
    } while (this.again && !this.stopped);
    if (this.stopped) return;
    const next = await this.opts.nextDueAt().catch(() => null);
    const idle = this.opts.idlePollMs ?? 5_000;
    const delay = next === null ? idle : Math.max(0, Math.min(idle, next - this.opts.clock.now()));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, delay);
  }
}
