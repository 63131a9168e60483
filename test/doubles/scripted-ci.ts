/**
 * A scripted CI for tests (the simulator has its own, SimulatedCi). It records what it
 * was asked to start and cancel; the test decides each run's outcome by reporting statuses.
 */
import type { CiPort, CiStartRequest, CiStatusSink } from '../../src/ci/port.js';
import type { CiStatus } from '../../src/forge/port.js';

export class ScriptedCi implements CiPort {
  readonly started: CiStartRequest[] = [];
  readonly cancelled: string[] = [];
  readonly logs = new Map<string, string>();
  /** Where statuses go; set by whoever wires the service (it exists only once the service does). */
  onStatus: CiStatusSink = () => {
    throw new Error('scripted CI: no status sink attached');
  };

  constructor(readonly context = 'greenline/ci') {}

  async start(req: CiStartRequest): Promise<void> {
    this.started.push(req);
  }

  async cancel(runId: string): Promise<void> {
    this.cancelled.push(runId);
  }

  async getLog(runId: string): Promise<string | null> {
    return this.logs.get(runId) ?? null;
  }

  /** Run ids started so far, in order. */
  startedRunIds(): string[] {
    return this.started.map((s) => s.runId);
  }

  async report(runId: string, state: CiStatus['state'], context = this.context): Promise<void> {
    await this.onStatus({ runId, status: { context, state } });
  }

  pass(runId: string): Promise<void> {
    return this.report(runId, 'success');
  }

  fail(runId: string): Promise<void> {
    return this.report(runId, 'failure');
  }
}
