/**
 * docs/errors.md lists exactly the codes the v1 wire writes (src/api/v1/error-status.ts), with the same
 * statuses (both directions).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { V1_ERRORS } from '../../src/api/v1/error-status.js';

const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const documented = new Map(
  [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [
    m[1]!,
    { status: Number(m[2]), meaning: m[3]! },
  ]),
);
const wireCodes = new Set<string>(Object.values(V1_ERRORS).map(([, code]) => code));

describe('docs/errors.md', () => {
  it('documents every wire code with its status', () => {
    for (const [status, code] of Object.values(V1_ERRORS)) expect(documented.get(code)?.status, code).toBe(status);
  });

  it('documents no code that the wire lacks', () => {
    for (const code of documented.keys()) expect([...wireCodes], code).toContain(code);
  });

  it('gives each code a meaning', () => {
    for (const [code, { meaning }] of documented) expect(meaning.trim().length, code).toBeGreaterThan(20);
  });
});
