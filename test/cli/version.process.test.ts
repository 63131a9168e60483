/** `greenline --version` prints the version of package.json, from the sources and from a build. */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, ROOT, runCli } from './run-cli.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('greenline --version', () => {
  it('prints the version of package.json', async () => {
    const { code, stdout } = await runCli(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(version);
  });

  it('reads it from the package.json beside dist/ of an installed copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'greenline-version-'));
    try {
      cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'greenline', version: '9.8.7', type: 'module' }));
      const out = execFileSync(process.execPath, [join(dir, 'dist/cli.js'), '--version'], {
        env: cleanEnv(),
        encoding: 'utf8',
      });
      expect(out.trim()).toBe('9.8.7');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
