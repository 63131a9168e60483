/**
 * The forge contract: every scenario of scenarios.ts, run against every forge world that can express
 * it (forge-world.ts): the github forge on the fake GitHub API (github-world.ts) and the git forge on
 * real git repositories (git-world.ts). A scenario a world cannot express is not generated for it;
 * README.md lists which scenario runs where, and a test below keeps that list true.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { WorldKind } from './forge-world.js';
import { gitWorld } from './git-world.js';
import { githubWorld } from './github-world.js';
import { contractTable, runsIn, SCENARIOS } from './scenarios.js';

/** Every forge world; a new forge adapter adds its own here. */
const WORLDS: readonly WorldKind[] = [githubWorld, gitWorld];

for (const world of WORLDS) {
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

/** A Markdown table's cells, whatever the padding of its columns. */
const cells = (table: string): string[][] =>
  table.split('\n').map((line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^(:?)-+(:?)$/, '$1-$2')),
  );

describe('forge contract', () => {
  it('README.md lists which scenario runs in which world', async () => {
    const readme = await readFile(new URL('README.md', import.meta.url), 'utf8');
    const table = /<!-- contract table -->\n([\s\S]*?)\n<!-- end -->/.exec(readme)?.[1];
    expect(table, 'README.md has the table between <!-- contract table --> and <!-- end -->').toBeDefined();
    expect(cells(table!)).toEqual(cells(contractTable(SCENARIOS, WORLDS)));
  });
});
