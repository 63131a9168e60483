/**
 * A CI retry (`retryCi`) asks the forge to run the failed checks of the test commit again. A check of
 * a workflow that is still running cannot be re-run yet (GitHub Actions: a job fails while the rest of
 * its workflow run goes on): the retry waits (store/ci-reruns.ts) and is carried out when the forge
 * reports the commit's checks completed (forge-observations.ts, `checksCompleted`) or, should that
 * report be lost, when the poller finds the run quiet (forge-poller.ts). While it waits, failures
 * reported for the commit are the old attempt's and do not count (ci-outcome.ts).
 */
import type { Kysely } from 'kysely';
import type { RepoBinding } from '../../forge/port.js';
import type { Database } from '../../store/database.js';
import { findWaitingRerun, setWaitingRerun } from '../../store/ci-reruns.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { Clock } from '../../lib/clock.js';

interface RerunDeps {
  db: Kysely<Database>;
  adapters: Adapters;
  clock: Clock;
}

/** Asks the forge to re-run the failed checks of the run's test commit; records what must be waited for. */
export async function rerunChecks(
  deps: RerunDeps,
  binding: RepoBinding,
  run: { runId: string; sha: string; branch: string },
): Promise<void> {
  const forge = forgeFor(deps.adapters, binding);
  if (!forge.rerunChecks) return;
  const { waiting } = await forge.rerunChecks(binding, { sha: run.sha, branch: run.branch });
  await setWaitingRerun(deps.db, { ...run, ciRuns: waiting }, deps.clock.now());
}

/**
 * Carries out the run's waiting retry for the workflow runs that completed since; false when none
 * waits (then the commit's checks are the current attempt's and may be read).
 */
export async function resumeRerun(deps: RerunDeps, binding: RepoBinding, runId: string): Promise<boolean> {
  const waiting = await findWaitingRerun(deps.db, runId);
  const forge = forgeFor(deps.adapters, binding);
  if (!waiting || !forge.rerunChecks) return false;
  const still = await forge.rerunChecks(binding, {
    sha: waiting.sha,
    branch: waiting.branch,
    only: waiting.ciRuns,
  });
  await setWaitingRerun(deps.db, { ...waiting, ciRuns: still.waiting }, deps.clock.now());
  return true;
}
