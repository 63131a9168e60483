/**
 * The SDK as its users get it, checked in child processes: its types compile for typical use and
 * refuse wrong bodies (tsc on typed-usage.ts), and the built package (dist/, `npm run build`)
 * exports it as greenline/client. Against the API's description: sdk-openapi.test.ts.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr });
    });
  });
}

describe('the SDK package', () => {
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
