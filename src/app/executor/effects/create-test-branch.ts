/** createTestBranch → testBranchCreated | testBranchFailed; skipped when the run is over. */
import { forgeFor } from '../../adapters.js';
import { type EffectHandler, runIsOver } from './effect-handler.js';

export const createTestBranch: EffectHandler<'createTestBranch'> = {
  async perform(ctx, effect) {
    if (await runIsOver(ctx, effect)) return null;
    const r = await forgeFor(ctx.adapters, ctx.binding).createTestBranch(ctx.binding, {
      branch: effect.branch,
      baseSha: effect.baseSha,
      prs: effect.prs,
    });
    const at = ctx.clock.now();
    return r.ok
      ? { kind: 'testBranchCreated', at, runId: effect.runId, sha: r.sha }
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
