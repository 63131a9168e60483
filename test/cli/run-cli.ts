/** Runs the real `greenline` command line as a child process (from source, through tsx). */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_ARGS = ['--import', 'tsx', 'src/cli.ts'];

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

export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, env: cleanEnv(env), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
