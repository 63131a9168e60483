/**
 * The forge contract: every scenario of scenarios.ts that a forge world can express (forge-world.ts),
 * run against that world. Each world's test file (github.slow.test.ts, git.slow.test.ts) runs it for its world;
 * a scenario a world cannot express is not generated for it. README.md lists which scenario runs
 * where (readme-table.test.ts keeps that list true).
 */
import { describe, it } from 'vitest';
import type { WorldKind } from './forge-world.js';
import { runsIn, SCENARIOS } from './scenarios.js';

export function forgeContract(world: WorldKind): void {
  describe(`forge contract: ${world.name}`, () => {
    for (const scenario of SCENARIOS.filter((s) => runsIn(s, world))) {
      it(scenario.name, async () => {
        const w = await world.create();
        try {
          await scenario.run(w);
        } finally {
          await w.close();
        }
      });
    }
  });
}
