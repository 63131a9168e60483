/**
 * retryCi: forgets the run's statuses, runs the built-in CI again (on this instance) when it ran the
 * run, and asks the forge to re-run the checks (waiting for workflows still running: check-reruns.ts);
 * external CI hears `test_run.retry_requested`. Skipped when the run is over.
 */
import { findRunRow, runOf, setRunRequiredStatuses } from '../../../store/test-runs.js';
import { rerunChecks } from '../check-reruns.js';
import { type EffectHandler, runIsOver } from './effect-handler.js';

export const retryCi: EffectHandler<'retryCi'> = {
  async perform(ctx, effect) {
    if (await runIsOver(ctx, effect)) return null;
    const { db, adapters, binding } = ctx;
    await ctx.ciOutcome.forget(effect.runId);
    const row = await findRunRow(db, effect.runId);
    if (row?.ci_instance && row.required_statuses !== null) {
      // This instance runs it now (the one that started it may have handed the queue over).
      await setRunRequiredStatuses(
        db,
        effect.runId,
        JSON.parse(row.required_statuses) as string[],
        row.required_statuses_source ?? 'queue',
        ctx.leases.instanceId,
      );
      const { changes } = runOf(row);
      await adapters.ci.start({
        repo: binding,
        runId: effect.runId,
        branch: effect.branch,
        sha: effect.sha,
        targetBranch: ctx.queue.target_branch,
        prNumbers: effect.prNumbers,
        timeoutMinutes: effect.timeoutMinutes,
        attempt: effect.attempt,
        ...(changes ? { changes: { baseSha: changes.baseSha, files: changes.files } } : {}),
      });
    }
    await rerunChecks(ctx, binding, { runId: effect.runId, sha: effect.sha, branch: effect.branch });
    return null;
  },
};
