/**
 * `npm ci` installs every locked package without an engine warning on the Node version running the
 * tests (README: Node.js 20+): npm itself checks package-lock.json, strictly, offline, installing nothing.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it(`every locked package supports the running Node (${process.version})`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'greenline-engines-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(dir, file));
    const out = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        'npm',
        ['ci', '--dry-run', '--engine-strict', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'],
        { cwd: dir },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(out.output).not.toMatch(/EBADENGINE|notsup/);
    expect(out.code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
