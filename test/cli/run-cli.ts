/**
 * Runs the real `greenline` command line as a child process: the build in dist/ when it is newer than
 * every source file (`npm run test:all` builds first), else the sources through tsx (slower to start).
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function newestMtime(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((d) =>
      d.isDirectory() ? newestMtime(join(dir, d.name)) : statSync(join(dir, d.name)).mtimeMs,
    ),
  );
}

function builtIsFresh(): boolean {
  try {
    return statSync(join(ROOT, 'dist/cli.js')).mtimeMs >= newestMtime(join(ROOT, 'src'));
  } catch {
    return false;
  }
}

/** Absolute, so that the command runs from any directory. */
export const CLI_ARGS = builtIsFresh()
  ? [join(ROOT, 'dist/cli.js')]
  : ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, join(ROOT, 'src/cli.ts')];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without GREENLINE_* variables of the outer process (tests set their own). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));
  return { ...env, ...extra };
}

/** Runs `greenline <args>` in `cwd` (default: the repository's root). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CLI_ARGS, ...args],
      { cwd, env: cleanEnv(env), timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
