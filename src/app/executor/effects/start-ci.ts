/**
 * startCi → ciStarted: fixes the run's required statuses (the queue's, the repository's, or the
 * forge's branch protection), starts the built-in CI when the repository has a command, reads
 * again every check the forge already holds for the test commit (what was reported before the run
 * knew its commit), and evaluates the run at once; the outcome comes later from statuses
 * (ci-outcome.ts). Skipped when the run is over.
 */
import { forgeFor } from '../../adapters.js';
import { protectionStatuses, resolveRequiredStatuses } from '../../repo-binding.js';
import { findRunRow, runOf, setRunRequiredStatuses } from '../../../store/test-runs.js';
import { type EffectHandler, runIsOver } from './effect-handler.js';

export const startCi: EffectHandler<'startCi'> = {
  async perform(ctx, effect) {
    if (await runIsOver(ctx, effect)) return null;
    const { db, adapters, binding, repo, queue, clock } = ctx;
    const required =
      resolveRequiredStatuses(effect.requiredStatuses, repo) ??
      (await protectionStatuses(forgeFor(adapters, binding), binding, queue.target_branch));
    if (!required) {
      return {
        kind: 'ciResult',
        at: clock.now(),
        runId: effect.runId,
        outcome: 'failure',
        reason: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
        detail: 'no required statuses: set requiredStatuses on the queue or connect the repository with a CI command',
      };
    }
    // With no check required (an empty override) the built-in CI is not started: its result could
    // change nothing, and evaluate() below passes the run at once.
    const runsCi = repo.ci_command !== null && required.statuses.length > 0;
    await setRunRequiredStatuses(
      db,
      effect.runId,
      required.statuses,
      required.source,
      runsCi ? ctx.leases.instanceId : null,
    );
    await ctx.executor.apply(ctx.queueId, {
      kind: 'ciStarted',
      at: clock.now(),
      runId: effect.runId,
      requiredStatuses: required.statuses,
    });
    if (runsCi) {
      const row = await findRunRow(db, effect.runId);
      const changes = row && runOf(row).changes;
      await adapters.ci.start({
        repo: binding,
        runId: effect.runId,
        branch: effect.branch,
        sha: effect.sha,
        targetBranch: queue.target_branch,
        prNumbers: effect.prNumbers,
        timeoutMinutes: effect.timeoutMinutes,
        ...(changes ? { changes: { baseSha: changes.baseSha, files: changes.files } } : {}),
      });
    }
    await ctx.ciOutcome.readChecksAgain(forgeFor(adapters, binding), binding, effect.runId, effect.sha);
    await ctx.ciOutcome.evaluate(effect.runId);
    return null;
  },
  exhausted: (effect, detail, at) => ({
    kind: 'ciResult',
    at,
    runId: effect.runId,
    outcome: 'failure',
    reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
    detail,
  }),
};
