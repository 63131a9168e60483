/**
 * A job run every `intervalMs`, never twice at once (a tick while it runs is skipped), and stopped by
 * waiting for the run in flight. `work` handles its own errors.
 */
export class Periodic {
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  /** `immediately`: also run once now. */
  start(opts: { immediately?: boolean } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    if (opts.immediately) this.tick();
  }

  /** Runs the job now, when started (and not already running), besides its interval. */
  runNow(): void {
    if (this.timer) this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current;
  }

  private tick(): void {
    if (this.current) return;
    this.current = this.work().finally(() => {
      this.current = null;
    });
  }
}
