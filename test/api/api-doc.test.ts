/**
 * docs/api.md documents every route of the OpenAPI document under a `### METHOD /path` heading, and
 * names every top-level request field (body or query) in that section.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHarness, json, type ApiHarness } from './api-harness.js';

const DOCS = {
  v1: readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8'),
  v2: readFileSync(new URL('../../docs/api-v2.md', import.meta.url), 'utf8'),
};

/** The text under `### <heading>` up to the next heading. */
function section(doc: string, heading: string): string | null {
  const start = doc.indexOf(`\n### ${heading}\n`);
  if (start < 0) return null;
  const next = doc.slice(start + 1).search(/\n#{2,3} /);
  return next < 0 ? doc.slice(start) : doc.slice(start, start + 1 + next);
}

interface Operation {
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  parameters?: { name: string; in: string }[];
}

let h: ApiHarness;
const paths: Record<'v1' | 'v2', Record<string, Record<string, Operation>>> = { v1: {}, v2: {} };
beforeAll(async () => {
  h = await createApiHarness();
  paths.v1 = json(await h.get('/v1/openapi.json')).paths;
  paths.v2 = json(await h.get('/v2/openapi.json')).paths;
});
afterAll(() => h.close());

describe.each([
  { version: 'v1', file: 'docs/api.md', min: 16 },
  { version: 'v2', file: 'docs/api-v2.md', min: 30 },
] as const)('$file', ({ version, min }) => {
  it('has a section for every route and names its request fields there', () => {
    const doc = DOCS[version];
    const routes = Object.entries(paths[version]).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    expect(routes.length).toBeGreaterThanOrEqual(min);
    expect(routes.every(({ path }) => path.startsWith('/v2/') === (version === 'v2'))).toBe(true);
    for (const { path, method, op } of routes) {
      const heading = `${method.toUpperCase()} ${path}`;
      const text = section(doc, heading);
      expect(text, `missing section "### ${heading}"`).not.toBeNull();
      const fields = [
        ...Object.keys(op.requestBody?.content['application/json']?.schema.properties ?? {}),
        ...(op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      ];
      for (const field of fields) {
        expect(text, `${heading} does not name ${field}`).toMatch(new RegExp(`\`${field}[\`.]`));
      }
    }
  });
});
