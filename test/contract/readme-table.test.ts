/**
 * README.md's table of which scenario of the forge contract runs in which world is the one the
 * scenarios and worlds make, and every world has its test file.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { contractTable, SCENARIOS } from './scenarios.js';
import { WORLDS } from './worlds.js';

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

  it('every world has its test file: `<name>.test.ts`, or `<name>.slow.test.ts` for a world over real git or HTTP', () => {
    for (const w of WORLDS) {
      const files = [`${w.name}.test.ts`, `${w.name}.slow.test.ts`].filter((f) =>
        existsSync(new URL(f, import.meta.url)),
      );
      expect(files, w.name).toHaveLength(1);
    }
  });
});
