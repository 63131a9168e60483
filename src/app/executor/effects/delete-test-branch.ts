/** deleteTestBranch: removes the run's branch from the forge; nothing is reported. */
import { forgeFor } from '../../adapters.js';
import type { EffectHandler } from './effect-handler.js';

export const deleteTestBranch: EffectHandler<'deleteTestBranch'> = {
  async perform(ctx, effect) {
    await forgeFor(ctx.adapters, ctx.binding).deleteBranch(ctx.binding, effect.branch);
    return null;
  },
};
