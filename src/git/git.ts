/**
 * The one way greenline runs the `git` binary: spawned without a shell, stdout and stderr captured,
 * a failure turned into a GitError that names the command and quotes git's stderr.
 *
 * Every call runs with LC_ALL=C (messages parsed below are git's English ones) and
 * GIT_TERMINAL_PROMPT=0 (a remote that wants a password fails instead of hanging the service), in a
 * process group of its own: Ctrl-C in the terminal of `greenline serve` or `demo` signals greenline,
 * which stops its pollers and effects (letting their git calls finish) instead of git dying under
 * them and each failing call being reported as an error.
 */
import { spawn } from 'node:child_process';
import { redact } from '../lib/redact.js';

export { redact };

export interface GitOptions {
  /** Repository directory (`git -C`); omitted for commands that take none (init, ls-remote). */
  cwd?: string;
  /** Extra environment on top of the process environment. */
  env?: Record<string, string>;
  /** Written to git's stdin (commit messages for commit-tree). */
  input?: string;
  /** Exit codes that are answers rather than failures (merge-tree exits 1 on conflicts). */
  okCodes?: readonly number[];
  /** Kill git after this long; network commands pass one. */
  timeoutMs?: number;
}

export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(
      redact(
        `git ${args.join(' ')} failed (${code === null ? 'did not finish' : `exit ${code}`}): ${stderr.trim() || '(no output)'}`,
      ),
    );
    this.name = 'GitError';
  }
}

const BASE_ENV = { LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' };
/** Trees of large repositories and long logs: far above anything a single call should print. */
const MAX_BUFFER = 256 * 1024 * 1024;

/** Runs git; resolves with the output when the exit code is 0 or one of `okCodes`, else rejects with GitError. */
export function runGit(args: readonly string[], opts: GitOptions = {}): Promise<GitOutput> {
  const fullArgs = opts.cwd ? ['-C', opts.cwd, ...args] : [...args];
  return new Promise((resolve, reject) => {
    const child = spawn('git', fullArgs, { env: { ...process.env, ...BASE_ENV, ...opts.env }, detached: true });
    let stdout = '';
    let stderr = '';
    /** Why greenline ended git itself: its timeout, or output beyond MAX_BUFFER. */
    let stopped: string | null = null;
    const stop = (why: string): void => {
      stopped ??= why;
      // The whole group: git's own children (ssh, a shell alias) hold its output open until they exit.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill(); // already gone, or a platform without process groups
      }
    };
    const timer = opts.timeoutMs
      ? setTimeout(() => stop(`no answer within ${opts.timeoutMs} ms`), opts.timeoutMs)
      : null;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_BUFFER) stop('too much output');
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.length > MAX_BUFFER) stop('too much output');
    });
    child.on('error', (err) => {
      if (timer) clearTimeout(timer);
      reject(new GitError(args, null, err.message));
    });
    child.on('close', (exit, signal) => {
      if (timer) clearTimeout(timer);
      const code = stopped === null ? exit : null;
      if (code !== null && (code === 0 || opts.okCodes?.includes(code))) resolve({ code, stdout, stderr });
      else {
        const why = [stopped, stderr.trim()].filter((s) => s).join(': ');
        reject(new GitError(args, code, why || `killed by ${signal ?? 'a signal'}`));
      }
    });
    // A git that exits before reading its stdin must not crash the service with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Runs git and returns its stdout without the trailing newline. */
export async function git(args: readonly string[], opts: GitOptions = {}): Promise<string> {
  return (await runGit(args, opts)).stdout.replace(/\n$/, '');
}
