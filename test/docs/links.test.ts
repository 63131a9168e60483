/**
 * Every relative link of the README, the root's guides and docs/ resolves: to a file of the repository,
 * and, with a `#fragment`, to a heading of that file as GitHub names its anchors. Links inside code
 * blocks and code spans are text, not links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  ...['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md'].filter((f) => existsSync(path.join(ROOT, f))),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The Markdown without fenced code blocks and code spans. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of a page's headings; a repeated heading gets -1, -2, … as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a page: `[text](target)`, without web and mail addresses. */
const linksOf = (page: string): string[] =>
  [...prose(readFileSync(path.join(ROOT, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z]+:/i.test(target));

describe.each(PAGES)('%s', (page) => {
  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const target of linksOf(page)) {
      const [file, fragment] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), file);
      if (!existsSync(resolved)) broken.push(`${target}: no file ${path.relative(ROOT, resolved)}`);
      else if (fragment !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment))
        broken.push(`${target}: no heading with the anchor #${fragment}`);
    }
    expect(broken).toEqual([]);
  });
});
