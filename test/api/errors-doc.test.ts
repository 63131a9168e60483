/** docs/errors.md lists exactly the catalogue of src/errors.ts, with the same statuses (both directions). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map(
  [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [
    m[1]!,
    { status: Number(m[2]), meaning: m[3]! },
  ]),
);

describe('docs/errors.md', () => {
  it('documents every catalogue code with its status', () => {
    for (const [code, { status }] of Object.entries(ERRORS)) {
      expect(documented.get(code)?.status, code).toBe(status);
    }
  });

  it('documents no code that the catalogue lacks', () => {
    for (const code of documented.keys()) expect(Object.keys(ERRORS), code).toContain(code);
  });

  it('gives each code a meaning', () => {
    for (const [code, { meaning }] of documented) expect(meaning.trim().length, code).toBeGreaterThan(20);
  });
});
