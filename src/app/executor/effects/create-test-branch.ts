/**
 * createTestBranch → testBranchCreated | testBranchFailed; skipped when the run is over. The test
 * commit is recorded for its run as soon as it is built, before the branch is published (the forge's
 * `onBuilt`, or its result for forges that do not tell), so that CI reporting on it at once finds the run.
 * The event carries what the run tests against and what changed (run-changes.ts).
 */
import { forgeFor } from '../../adapters.js';
import { findRunRow, runOf } from '../../../store/test-runs.js';
import { runChanges } from '../run-changes.js';
import { type EffectHandler, runIsOver } from './effect-handler.js';

export const createTestBranch: EffectHandler<'createTestBranch'> = {
  async perform(ctx, effect) {
    if (await runIsOver(ctx, effect)) return null;
    const adopt = (sha: string) => ctx.ciOutcome.adoptTestCommit(effect.runId, ctx.repo.id, sha);
    const forge = forgeFor(ctx.adapters, ctx.binding);
    const r = await forge.createTestBranch(ctx.binding, {
      branch: effect.branch,
      baseSha: effect.baseSha,
      prs: effect.prs,
      onBuilt: adopt,
    });
    if (r.ok) await adopt(r.sha);
    // A merge's rebuild of a test commit has no run of its own, and no changes to tell.
    const row = r.ok ? await findRunRow(ctx.db, effect.runId) : undefined;
    const changes = r.ok && row ? await runChanges(forge, ctx.binding, runOf(row), r) : undefined;
    const at = ctx.clock.now();
    return r.ok
      ? { kind: 'testBranchCreated', at, runId: effect.runId, sha: r.sha, ...(changes ? { changes } : {}) }
      : { kind: 'testBranchFailed', at, runId: effect.runId, reason: r.reason, detail: r.detail };
  },
  exhausted: (effect, detail, at) => ({
    kind: 'testBranchFailed',
    at,
    runId: effect.runId,
    reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
    detail,
  }),
};
