/**
 * The SDK against the server's own description of the API: one client method per operation of
 * /v1/openapi.json with the same method and path (both directions). Its types and its export from
 * the built package: sdk-package.process.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, GreenlineClient } from '../../src/client/index.js';
import { createApiHarness, json, type ApiHarness } from '../api/api-harness.js';

let h: ApiHarness;
let operations: string[];
beforeAll(async () => {
  h = await createApiHarness();
  const paths = json(await h.get('/v1/openapi.json')).paths as Record<string, Record<string, unknown>>;
  operations = Object.entries(paths).flatMap(([path, ops]) =>
    Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
  );
});
afterAll(() => h?.close());

describe('the SDK and the OpenAPI document', () => {
  it('has exactly one endpoint per operation of /v1/openapi.json, with its method and path', () => {
    expect(operations.length).toBeGreaterThanOrEqual(16);
    const sdk = Object.values(ENDPOINTS).map(({ method, path }) => `${method} ${path}`);
    expect([...sdk].sort()).toEqual([...operations].sort());
  });

  it('has a client method for every endpoint, named as its path', () => {
    for (const [name, { path }] of Object.entries(ENDPOINTS)) {
      expect(path.split('/').at(-1)).toBe(name);
      expect(typeof (GreenlineClient.prototype as unknown as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
