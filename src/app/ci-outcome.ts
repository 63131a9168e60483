/**
 * From CI statuses to a test run's outcome. Statuses arrive from the built-in runner (through its
 * CiStatusSink) and from external CI (reportStatus); both are stored per (run, context), latest wins.
 * The run's required statuses are fixed when its CI starts (effect runner, `startCi`):
 *   every required context `success`              → ciResult success
 *   any required context `failure` or `error`     → ciResult failure (TEST_RUN_REQUIRED_STATUS_FAILED)
 *   otherwise (pending or not reported yet)       → wait
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EngineEvent } from '../engine/types.js';
import { HttpError } from '../errors.js';
import type { CiStatusReport, CiStatusSink } from '../ports.js';
import type { CiStatusRow, Database } from '../store/database.js';
import { listCiStatuses, upsertCiStatus } from '../store/ci-statuses.js';
import { findRunRow } from '../store/test-runs.js';
import type { Clock } from './clock.js';
import type { QueueExecutor } from './queue-executor.js';

export function outcomeOf(required: string[], statuses: Pick<CiStatusRow, 'context' | 'state'>[]):
  { outcome: 'success' } | { outcome: 'failure'; detail: string } | null {
  const byContext = new Map(statuses.map((s) => [s.context, s.state]));
  const failed = required.find((c) => byContext.get(c) === 'failure' || byContext.get(c) === 'error');
  if (failed) return { outcome: 'failure', detail: `required status "${failed}" reported ${byContext.get(failed)}` };
  return required.every((c) => byContext.get(c) === 'success') ? { outcome: 'success' } : null;
}

export class CiOutcome {
  constructor(private readonly deps: { db: Kysely<Database>; executor: QueueExecutor; clock: Clock; logger?: Logger }) {}

  /** For CI adapters: never throws back into the adapter; problems are logged. */
  readonly sink: CiStatusSink = async (report) => {
    try {
      await this.record(report);
    } catch (err) {
      this.deps.logger?.warn({ err, runId: report.runId }, 'CI status not recorded');
    }
  };

  /** Stores a status and, when it settles the run, tells the engine. Unknown run → 404. */
  async record(report: CiStatusReport): Promise<void> {
    const run = await findRunRow(this.deps.db, report.runId);
    if (!run) throw new HttpError('TEST_RUN_NOT_FOUND', report.runId);
    const { context, state, url, description } = report.status;
    await upsertCiStatus(this.deps.db, {
      run_id: run.id, context, state, url: url ?? null, description: description ?? null, updated_at: this.deps.clock.now(),
    });
    await this.evaluate(run.id);
  }

  /** Sends the run's outcome to its queue when its required statuses settle it. */
  async evaluate(runId: string): Promise<void> {
    const run = await findRunRow(this.deps.db, runId);
    if (!run || run.required_statuses === null) return;
    const result = outcomeOf(JSON.parse(run.required_statuses) as string[], await listCiStatuses(this.deps.db, runId));
    if (!result) return;
    const at = this.deps.clock.now();
    const event: EngineEvent = result.outcome === 'success'
      ? { kind: 'ciResult', at, runId, outcome: 'success' }
      : { kind: 'ciResult', at, runId, outcome: 'failure', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', detail: result.detail };
    await this.deps.executor.apply(run.queue_id, event);
  }
}
