/** merge → merged | mergeFailed, with what was merged before a refusal. */
import { forgeFor } from '../../adapters.js';
import type { EffectHandler } from './effect-handler.js';

export const merge: EffectHandler<'merge'> = {
  async perform(ctx, effect) {
    const { entries, config } = await ctx.executor.read(ctx.queueId, ctx.queue.version);
    const merging = new Set(effect.prs.map((p) => p.number));
    const ownMessages = new Map(
      entries.flatMap((e) => (merging.has(e.prNumber) && e.commitMessage ? [[e.prNumber, e.commitMessage]] : [])),
    );
    const r = await forgeFor(ctx.adapters, ctx.binding).advanceTarget(ctx.binding, {
      targetBranch: ctx.queue.target_branch,
      expectedSha: effect.expectedTargetSha,
      testSha: effect.testSha,
      prs: effect.prs,
      method: effect.method,
      messages: config.commitMessages ?? null,
      ...(ownMessages.size > 0 ? { ownMessages } : {}),
    });
    const at = ctx.clock.now();
    const prNumbers = effect.prs.map((p) => p.number);
    return r.ok
      ? {
          kind: 'merged',
          at,
          runId: effect.runId,
          prNumbers,
          newTargetSha: r.newSha,
          ...(r.note ? { detail: r.note } : {}),
        }
      : {
          kind: 'mergeFailed',
          at,
          runId: effect.runId,
          prNumbers,
          reason: r.reason,
          detail: r.detail,
          ...(r.mergedPrNumbers ? { mergedPrNumbers: r.mergedPrNumbers } : {}),
          ...(r.newSha ? { newTargetSha: r.newSha } : {}),
        };
  },
  exhausted: (effect, detail, at) => ({
    kind: 'mergeFailed',
    at,
    runId: effect.runId,
    prNumbers: effect.prs.map((p) => p.number),
    reason: 'MERGE_REFUSED',
    detail,
  }),
};
