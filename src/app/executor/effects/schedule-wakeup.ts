/** scheduleWakeup → tick: an engine deadline has come (the effect is stored due at its `at`). */
import type { EffectHandler } from './effect-handler.js';

export const scheduleWakeup: EffectHandler<'scheduleWakeup'> = {
  async perform(ctx) {
    return { kind: 'tick', at: ctx.clock.now() };
  },
};
