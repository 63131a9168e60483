/**
 * ARCHITECTURE.md stays true: it names every top-level folder of src/, every forge (a folder of
 * src/forge/) and every world of the forge contract (by its test file in test/contract/), so a folder,
 * a forge or a world added without a word there fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const doc = readFileSync(new URL('ARCHITECTURE.md', root), 'utf8');
const folders = (path: string): string[] =>
  readdirSync(new URL(path, root), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

describe('ARCHITECTURE.md', () => {
  it('names every top-level folder of src/', () => {
    expect(folders('src/').filter((f) => !doc.includes(`src/${f}/`))).toEqual([]);
  });

  it('names every forge, by its folder', () => {
    expect(folders('src/forge/').filter((f) => !doc.includes(`src/forge/${f}/`))).toEqual([]);
  });

  it('names every world of the forge contract, by its test file', () => {
    const worlds = readdirSync(new URL('test/contract/', root)).filter(
      (f) => f.endsWith('.test.ts') && f !== 'readme-table.test.ts',
    );
    expect(worlds.length).toBeGreaterThan(0);
    expect(worlds.filter((f) => !doc.includes(f))).toEqual([]);
  });
});
