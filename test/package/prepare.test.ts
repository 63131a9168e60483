/**
 * npm's `prepare` script (package.json → scripts/prepare.mjs): `npx greenline` in a checkout installs
 * the checkout into npm's cache and runs it (npm_command `exec`); it must not rebuild a built dist/,
 * under a server that may run from it, while `npm ci`, `npm install` and `npm pack` build. Run
 * literally as npm runs it, in a copy of the checkout whose `build` script only leaves a mark.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'greenline-prepare-'));
  cpSync(join(ROOT, 'scripts'), join(dir, 'scripts'), { recursive: true });
  const scripts = { prepare: pkg.scripts.prepare, build: "node -e \"require('fs').writeFileSync('built', '')\"" };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'greenline', version: '0.0.0', scripts }));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the prepare script as npm runs it for `npm <command>`; whether it built. */
async function prepareBuilds(command: string): Promise<boolean> {
  const env = { ...process.env, npm_command: command };
  await new Promise<void>((resolve, reject) =>
    execFile('sh', ['-c', pkg.scripts.prepare!], { cwd: dir, env }, (err, _out, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(),
    ),
  );
  const built = existsSync(join(dir, 'built'));
  rmSync(join(dir, 'built'), { force: true });
  return built;
}

describe('the prepare script', () => {
  it('leaves a built dist/ alone under npx, and builds for npm ci, npm install and npm pack', async () => {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'cli.js'), '');
    expect(await prepareBuilds('exec')).toBe(false);
    for (const command of ['ci', 'install', 'pack']) expect(await prepareBuilds(command), command).toBe(true);
  });

  it('builds under npx when there is no dist/ yet', async () => {
    expect(await prepareBuilds('exec')).toBe(true);
  });
});
