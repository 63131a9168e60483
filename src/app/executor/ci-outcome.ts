/**
 * From CI statuses to a test run's outcome. Statuses arrive from the built-in runner (through its
 * CiStatusSink) and from external CI (reportStatus); both are stored per (run, context), latest wins.
 * The run's required statuses are fixed when its CI starts (effect runner, `startCi`):
 *   every required context `success` or `skipped` → ciResult success
 *   … but every one `skipped`                      → ciResult failure (REQUIRED_STATUSES_SKIPPED: nothing
 *                                                    was tested), unless the queue sets allSkippedPasses
 *   any required context `failure` or `error`      → ciResult failure (TEST_RUN_REQUIRED_STATUS_FAILED)
 *   else any required context `cancelled`          → ciResult cancelled (tested again, engine ci-retries.ts)
 *   otherwise (pending or not reported yet)        → wait
 * Quarantined required statuses (the queue's `quarantinedStatuses` and those quarantined automatically,
 * engine quarantine.ts) do not decide: the rules above apply to the others, unless every required
 * status is quarantined (then all decide). A quarantined status that failed is still told to the
 * engine (`failedStatuses`), which counts it.
 * A required context reported for the first time in the run's current attempt is told to the engine
 * (`ciStatusSeen`: `requiredStatusStartTimeoutMinutes`). When the engine runs CI again (`retryCi`),
 * the statuses of the run are forgotten (`forget`), so that the new attempt's statuses decide it.
 * A run whose checks could not run at all (`fail`: a workflow that could not start) fails at once.
 *
 * Statuses a forge reports for a commit (`recordForCommit`) go to the run whose test commit it is; those
 * for a commit no run has yet are held (store/early-ci-statuses.ts) and recorded when a run gets that
 * commit (`adoptTestCommit`: when it is built, before it is published).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EngineEvent } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import type { ForgePort, RepoBinding } from '../../forge/port.js';
import type { CiStatusReport, CiStatusSink } from '../../ci/port.js';
import type { CiStatus } from '../../forge/port.js';
import type { CiStatusRow, Database, TestRunRow } from '../../store/database.js';
import { deleteCiStatuses, listCiStatuses, upsertCiStatus } from '../../store/ci-statuses.js';
import { findWaitingRerun } from '../../store/ci-reruns.js';
import { holdEarlyStatus, takeEarlyStatuses } from '../../store/early-ci-statuses.js';
import { findQueueById } from '../../store/queues.js';
import { findRunRow, findRunRowByTestSha, runOf, setRunTestSha } from '../../store/test-runs.js';
import { gatingStatuses, isInFlight, quarantinedStatusesOf } from '../../engine/index.js';
import type { QueueSnapshot } from '../../engine/types.js';
import type { Clock } from '../../lib/clock.js';
import type { QueueExecutor } from './queue-executor.js';
import { queueConfigOf } from './snapshot-io.js';

const failing = (state: string | undefined): boolean => state === 'failure' || state === 'error';

/** A run's outcome as its statuses decide it; null = not decided yet. */
export type Outcome = (
  | { outcome: 'success' }
  | { outcome: 'failure'; reason?: 'REQUIRED_STATUSES_SKIPPED'; detail: string }
  | { outcome: 'cancelled'; detail: string }
) & {
  /** Required statuses (quarantined ones included) that reported failure or error; absent = none. */
  failedStatuses?: string[];
};

/**
 * The detail of a failure names the failed required status and, when it gave one, its description;
 * or, when every required status was skipped, says so and what to change.
 */
export function outcomeOf(
  allRequired: string[],
  statuses: (Pick<CiStatusRow, 'context' | 'state'> & { description?: string | null })[],
  opts: { allSkippedPasses?: boolean; quarantined?: readonly string[] } = {},
): Outcome | null {
  const byContext = new Map(statuses.map((s) => [s.context, s]));
  const required = gatingStatuses(allRequired, opts.quarantined ?? []);
  const outcome = decidingOutcome(required, byContext, opts);
  if (!outcome) return null;
  const failedStatuses = allRequired.filter((c) => failing(byContext.get(c)?.state));
  return failedStatuses.length > 0 ? { ...outcome, failedStatuses } : outcome;
}

function decidingOutcome(
  required: string[],
  byContext: Map<string, Pick<CiStatusRow, 'context' | 'state'> & { description?: string | null }>,
  opts: { allSkippedPasses?: boolean },
): Outcome | null {
  const detail = (context: string): string => {
    const { state, description } = byContext.get(context)!;
    return `required status "${context}" reported ${state}${description ? `: ${description}` : ''}`;
  };
  const failed = required.find((c) => failing(byContext.get(c)?.state));
  if (failed) return { outcome: 'failure', detail: detail(failed) };
  const cancelled = required.find((c) => byContext.get(c)?.state === 'cancelled');
  if (cancelled) return { outcome: 'cancelled', detail: detail(cancelled) };
  const stateOf = (c: string) => byContext.get(c)?.state;
  if (!required.every((c) => stateOf(c) === 'success' || stateOf(c) === 'skipped')) return null;
  if (required.length > 0 && required.every((c) => stateOf(c) === 'skipped') && !opts.allSkippedPasses) {
    return {
      outcome: 'failure',
      reason: 'REQUIRED_STATUSES_SKIPPED',
      detail:
        `every required check (${required.join(', ')}) was skipped on the test commit, so nothing was tested: ` +
        'make the workflows run these jobs for the test branch (workflows that skip jobs on draft pull requests ' +
        "or run only on some paths or branches skip them), or set the queue's allSkippedPasses to let such runs pass",
    };
  }
  return { outcome: 'success' };
}

/** The link of the first failed required status of a run that reported one (null: none has a link). */
export async function failedCheckUrl(db: Kysely<Database>, runId: string): Promise<string | null> {
  const run = await findRunRow(db, runId);
  const required: string[] = run?.required_statuses ? (JSON.parse(run.required_statuses) as string[]) : [];
  const statuses = await listCiStatuses(db, runId);
  return (
    statuses.find((s) => failing(s.state) && s.url && (required.length === 0 || required.includes(s.context)))?.url ??
    null
  );
}

export class CiOutcome {
  constructor(
    private readonly deps: { db: Kysely<Database>; executor: QueueExecutor; clock: Clock; logger?: Logger },
  ) {}

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
    if (!run) throw new ServiceError('TEST_RUN_NOT_FOUND', report.runId);
    await this.recordOf(run, report.status);
  }

  /** Stores a status of a run read moments ago and, when it settles the run, tells the engine; the run is not read again. */
  async recordOf(run: TestRunRow, status: CiStatus): Promise<void> {
    const { context, state, url, description } = status;
    await upsertCiStatus(this.deps.db, {
      run_id: run.id,
      context,
      state,
      url: url ?? null,
      description: description ?? null,
      updated_at: this.deps.clock.now(),
    });
    await this.settle(run);
  }

  /**
   * Records what the forge reports for a commit of the repository for the run whose test commit it is;
   * without such a run, holds it for the run that gets that commit. While the run's retry waits for
   * workflows to complete (check-reruns.ts), the failures reported are the old attempt's and are
   * passed over. True when a run had it.
   */
  async recordForCommit(repoId: string, sha: string, statuses: CiStatus[]): Promise<boolean> {
    const run = await findRunRowByTestSha(this.deps.db, repoId, sha);
    if (!run) {
      for (const status of statuses) await holdEarlyStatus(this.deps.db, repoId, sha, status, this.deps.clock.now());
      return false;
    }
    const retrying = (await findWaitingRerun(this.deps.db, run.id)) !== null;
    for (const status of statuses) {
      if (retrying && (failing(status.state) || status.state === 'cancelled')) continue;
      await this.record({ runId: run.id, status });
    }
    return true;
  }

  /**
   * The run's test commit is `sha` (built, perhaps not yet published): from now on what is reported
   * for it goes to the run, and what was held for it is recorded now. A merge's rebuild of a test
   * commit has no run: nothing is recorded for it.
   */
  async adoptTestCommit(runId: string, repoId: string, sha: string): Promise<void> {
    if (!(await findRunRow(this.deps.db, runId))) return;
    await setRunTestSha(this.deps.db, runId, sha);
    for (const status of await takeEarlyStatuses(this.deps.db, repoId, sha)) await this.record({ runId, status });
  }

  /**
   * Sends the run's outcome to its queue when its required statuses settle it; otherwise tells it
   * which required statuses were reported for the first time.
   */
  async evaluate(runId: string): Promise<void> {
    const run = await findRunRow(this.deps.db, runId);
    if (run) await this.settle(run);
  }

  /** evaluate, of a run already read. */
  private async settle(run: TestRunRow): Promise<void> {
    if (run.required_statuses === null) return;
    const runId = run.id;
    const required = JSON.parse(run.required_statuses) as string[];
    const statuses = await listCiStatuses(this.deps.db, runId);
    const result = outcomeOf(required, statuses, await this.outcomeOptions(run.queue_id));
    const at = this.deps.clock.now();
    if (!result) {
      const seen = new Set(runOf(run).statusesSeen ?? []);
      const fresh = required.filter((c) => !seen.has(c) && statuses.some((s) => s.context === c));
      if (fresh.length > 0 && isInFlight(runOf(run)))
        await this.deps.executor.apply(run.queue_id, { kind: 'ciStatusSeen', at, runId, contexts: fresh });
      return;
    }
    const failed = result.failedStatuses ? { failedStatuses: result.failedStatuses } : {};
    const event: EngineEvent =
      result.outcome === 'success'
        ? { kind: 'ciResult', at, runId, outcome: 'success', ...failed }
        : result.outcome === 'cancelled'
          ? { kind: 'ciResult', at, runId, outcome: 'cancelled', detail: result.detail }
          : {
              kind: 'ciResult',
              at,
              runId,
              outcome: 'failure',
              reason: result.reason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED',
              detail: result.detail,
              ...failed,
            };
    await this.deps.executor.apply(run.queue_id, event);
  }

  /** The queue's allSkippedPasses setting (absent = false) and the statuses it has quarantined now. */
  private async outcomeOptions(queueId: string): Promise<{ allSkippedPasses: boolean; quarantined: string[] }> {
    const queue = await findQueueById(this.deps.db, queueId);
    if (!queue) return { allSkippedPasses: false, quarantined: [] };
    const config = queueConfigOf(queue);
    const internal = JSON.parse(queue.internal) as QueueSnapshot['internal'];
    return {
      allSkippedPasses: config.allSkippedPasses === true,
      quarantined: quarantinedStatusesOf({ config, internal } as QueueSnapshot),
    };
  }

  /**
   * Fails a run whose checks could not run at all (GitHub: a workflow that could not start), `detail`
   * saying why and what to change; the engine runs CI again when ciRetries allows.
   */
  async fail(runId: string, detail: string): Promise<void> {
    const run = await findRunRow(this.deps.db, runId);
    if (!run || !isInFlight(runOf(run))) return;
    await this.deps.executor.apply(run.queue_id, {
      kind: 'ciResult',
      at: this.deps.clock.now(),
      runId,
      outcome: 'failure',
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      detail,
    });
  }

  /**
   * Reads every check the forge holds for the run's test commit and records it: what CI may have
   * reported without greenline hearing it (before the run knew its commit, a lost delivery).
   */
  async readChecksAgain(forge: ForgePort, binding: RepoBinding, runId: string, sha: string): Promise<void> {
    for (const status of (await forge.checkStatuses?.(binding, sha)) ?? []) await this.record({ runId, status });
  }

  /**
   * Records what the forge holds now for the test commit of a run in flight that differs from what
   * the run has (a forge whose CI results are polled, ForgePort.pollsChecks). After a retry on the
   * same commit, the statuses the forge recorded before the current attempt began are the earlier
   * attempt's and are left out.
   */
  async readChecksOfAttempt(forge: ForgePort, binding: RepoBinding, row: TestRunRow): Promise<void> {
    const run = runOf(row);
    const retried = (run.failedRetries ?? 0) + (run.cancelledRetries ?? 0) > 0;
    const begun = retried ? (run.ciStartedAt ?? row.created_at) : Number.NEGATIVE_INFINITY;
    const known = new Map((await listCiStatuses(this.deps.db, row.id)).map((s) => [s.context, s]));
    for (const status of (await forge.checkStatuses?.(binding, row.test_sha!)) ?? []) {
      if (status.at !== undefined && status.at < begun) continue;
      const had = known.get(status.context);
      const same =
        had?.state === status.state &&
        (had.url ?? undefined) === status.url &&
        (had.description ?? undefined) === status.description;
      if (!same) await this.record({ runId: row.id, status });
    }
  }

  /** Forgets the statuses of a run whose CI is run again: the new attempt's statuses decide it. */
  async forget(runId: string): Promise<void> {
    await deleteCiStatuses(this.deps.db, runId);
  }
}
