/**
 * A real `greenline serve` process (the built dist/cli.js) on a free port with its own data dir, a
 * temp bare git repository connected to it with the git forge, a token, and `cli()` to run client
 * commands as separate processes. Client commands run with HOME in the temp dir, so no client config
 * file of the machine is read.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeGitFixture, type GitFixture } from '../helpers/git-fixture.js';
import { listeningAddress } from '../helpers/listening.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliServer {
  url: string;
  token: string;
  git: GitFixture;
  home: string;
  /** Runs `greenline ...args` (no --url/--token added); `env` is added to a clean environment. */
  cli(args: string[], env?: Record<string, string>, stdin?: string): Promise<CliResult>;
  /** `cli` with --url and --token of this server. */
  run(args: string[], env?: Record<string, string>, stdin?: string): Promise<CliResult>;
  stop(): Promise<void>;
}

/** The environment without GREENLINE_* or XDG_CONFIG_HOME of the outer process, HOME in the temp dir. */
function cleanEnv(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_') && k !== 'XDG_CONFIG_HOME'),
  );
  return { ...env, HOME: home, ...extra };
}

function exec(home: string, args: string[], env: Record<string, string> = {}, stdin?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: home, env: cleanEnv(home, env), timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin!.end(stdin ?? '');
  });
}

export interface CliServerOptions {
  /**
   * Repositories connected to the one temp remote, with their built-in CI command (null: external CI).
   * Default: github.com/acme/web, whose CI fails when the test commit has fail.txt.
   */
  repos?: { slug: string; ciCommand: string | null }[];
  /**
   * Runs before the server starts, e.g. to open PRs: the git forge reads the remote at most every
   * couple of seconds, so a PR pushed while the server runs may not be seen by a submit right away.
   */
  beforeServe?: (git: GitFixture) => Promise<void>;
}

export async function startCliServer(opts: CliServerOptions = {}): Promise<CliServer> {
  const git = await makeGitFixture();
  const home = path.join(git.root, 'home');
  const dataDir = path.join(git.root, 'data');
  mkdirSync(home, { recursive: true });
  for (const { slug, ciCommand } of opts.repos ?? [{ slug: 'github.com/acme/web', ciCommand: 'test ! -f fail.txt' }]) {
    const connect = await exec(home, [
      'repo',
      'connect',
      slug,
      '--org',
      'default',
      '--forge',
      'git',
      '--remote',
      git.remote,
      ...(ciCommand === null ? [] : ['--ci-command', ciCommand]),
      '--data-dir',
      dataDir,
    ]);
    if (connect.code !== 0) throw new Error(`repo connect failed: ${connect.stderr}`);
  }
  await opts.beforeServe?.(git);
  const created = await exec(home, ['token', 'create', '--org', 'default', '--data-dir', dataDir]);
  const token = created.stdout.trimEnd().split('\n').at(-1)!;

  const child: ChildProcess = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', '--poll-interval', '1'],
    { cwd: home, env: cleanEnv(home, {}), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await listeningAddress(child, () => out, 30_000);
  if (!url) {
    child.kill('SIGKILL');
    throw new Error(`serve did not start: ${out}`);
  }
  const cli: CliServer['cli'] = (args, env, stdin) => exec(home, args, env, stdin);
  return {
    url,
    token,
    git,
    home,
    cli,
    run: (args, env, stdin) => cli([...args, '--url', url, '--token', token], env, stdin),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await git.cleanup();
    },
  };
}
