/**
 * The shell of an outbox worker (the effect runner, the webhook delivery worker): an OutboxLoop that
 * calls the worker's `lookAtOutbox` when woken, with start, stop and wake. A subclass does the work
 * and says when the next row is due.
 */
import { OutboxLoop, type OutboxLoopOptions } from './outbox-loop.js';

export type OutboxWorkerOptions = Omit<OutboxLoopOptions, 'round'>;

export abstract class OutboxWorker {
  protected readonly loop: OutboxLoop;

  constructor(opts: OutboxWorkerOptions) {
    this.loop = new OutboxLoop({ ...opts, round: () => this.lookAtOutbox() });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops looking at the outbox and waits for the work in progress. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Asks the worker to look at the outbox now (e.g. after a commit that added rows). */
  wake(): void {
    this.loop.wake();
  }

  /** Does the work that is due now (one round of the loop). */
  protected abstract lookAtOutbox(): Promise<void>;
}
