/** cancelCi: stops the built-in CI's run; nothing is reported. */
import type { EffectHandler } from './effect-handler.js';

export const cancelCi: EffectHandler<'cancelCi'> = {
  async perform(ctx, effect) {
    await ctx.adapters.ci.cancel(effect.runId);
    return null;
  },
};
