/**
 * The SDK against the server's own description of the API: one client method per operation of
 * /v1/openapi.json with the same method and path (both directions), its types compile for typical
 * use and refuse wrong bodies (tsc on typed-usage.ts), and the package exports it as greenline/client.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, GreenlineClient } from '../../src/client/index.js';
import { createApiHarness, json, type ApiHarness } from '../api/api-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
  });
}

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

  it('types typical calls and refuses wrong bodies (tsc --noEmit on typed-usage.ts)', async () => {
    const r = await run(['node_modules/typescript/bin/tsc', '-p', 'test/client/tsconfig.typed-usage.json']);
    expect(r.out).toBe('');
    expect(r.code).toBe(0);
  }, 120_000);

  it('is exported as greenline/client from the built package', async () => {
    const r = await run([
      '--input-type=module',
      '-e',
      "const m = await import('greenline/client'); const c = new m.GreenlineClient({ url: 'http://127.0.0.1:1/v1' }); console.log(c.url, Object.keys(m).sort().join(' '))",
    ]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('http://127.0.0.1:1 ');
    expect(r.out).toContain('GreenlineApiError GreenlineClient GreenlineError GreenlineNetworkError');
  });
});
