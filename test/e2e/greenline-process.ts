/**
 * The real product for end-to-end tests: the built command line (`node dist/cli.js`) connects a
 * repository and creates an API token, then `serve` runs as a child process on a free port with its
 * own data dir (SQLite). Requests go over real HTTP; the server's JSON log (stderr) is kept, because
 * its `transition` lines are where a PR's reasons can be read (the v1 API has no reason field).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CiRecord } from './ci-script.js';
import type { Json } from '../helpers/json.js';
import { listeningAddress } from '../helpers/listening.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'dist', 'cli.js');

/** The built CLI must exist: `npm run test:all` builds before it runs vitest. */
export function requireBuilt(): void {
  if (!existsSync(CLI)) {
    throw new Error(
      `${CLI} is missing: the end-to-end tests run the built server. Build it first with \`npm run build\` (\`npm run test:all\` does).`,
    );
  }
}

/** The environment without GREENLINE_* variables of the outer process (each server gets its own). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: ROOT, env: cleanEnv(), timeout: 30_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** One `transition` line of the server's log: a PR moved from one state to another, and why. */
export interface Transition {
  pr: number;
  from: string | null;
  to: string;
  reason: string;
  runId?: string;
}

export interface ApiReply {
  status: number;
  json: Json;
}

export interface RepoToConnect {
  /** HOST/OWNER/NAME. */
  repo: string;
  remote: string;
  ciCommand: string;
  /** false: connect without checking the remote (`--no-remote-check`), for a remote that is gone. */
  remoteCheck?: boolean;
  /** Where the forge shows a PR (`--pr-url-template`, `{n}` = PR number); absent = no PR address known. */
  prUrlTemplate?: string;
}

export interface GreenlineOptions {
  /** Where the data dir goes (`<dir>/<dataDirName>`). */
  dir: string;
  /** Name of the data dir under `dir` (default `data`): several instances each have their own. */
  dataDirName?: string;
  repos: RepoToConnect[];
  /** Built-in CI commands at once (the server's `--ci-max-parallel`). */
  ciMaxParallel?: number;
  /** A PostgreSQL URL (`--database-url`) instead of SQLite in the data dir. */
  databaseUrl?: string;
  /**
   * The token of an earlier start on the same store (another instance, or before a restart): the
   * repositories are connected already and no token is created.
   */
  token?: string;
  /** More `serve` flags (e.g. `--lease-ttl`). */
  serveArgs?: string[];
  /**
   * Run `serve` as the leader of a process group of its own (as a service manager or a shell job
   * runs it), so that `killGroup` can kill it with every process in its group.
   */
  ownProcessGroup?: boolean;
}

export class GreenlineProcess {
  private stdout = '';
  private stderr = '';
  private address = '';
  private readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly token: string,
  ) {
    running.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        running.delete(child);
        resolve(code);
      }),
    );
    child.stdout!.on('data', (d: Buffer) => {
      this.stdout += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString();
    });
  }

  /** Connects the repositories, creates a token and starts `serve`; resolves once it listens. */
  static async start(opts: GreenlineOptions): Promise<GreenlineProcess> {
    requireBuilt();
    const dataDir = path.join(opts.dir, opts.dataDirName ?? 'data');
    const store = ['--data-dir', dataDir, ...(opts.databaseUrl ? ['--database-url', opts.databaseUrl] : [])];
    let token = opts.token;
    if (token === undefined) {
      for (const r of opts.repos) {
        const connect = await runCli([
          'repo',
          'connect',
          r.repo,
          '--org',
          'default',
          '--forge',
          'git',
          '--remote',
          r.remote,
          '--ci-command',
          r.ciCommand,
          ...store,
          ...(r.remoteCheck === false ? ['--no-remote-check'] : []),
          ...(r.prUrlTemplate ? ['--pr-url-template', r.prUrlTemplate] : []),
        ]);
        if (connect.code !== 0) throw new Error(`repo connect failed: ${connect.stderr}`);
      }
      const created = await runCli(['token', 'create', '--org', 'default', ...store]);
      if (created.code !== 0) throw new Error(`token create failed: ${created.stderr}`);
      token = created.stdout.trimEnd().split('\n').at(-1)!;
    }

    // The forge poll interval at its minimum (1 s): the git forge has no webhooks.
    const server = new GreenlineProcess(
      spawn(
        process.execPath,
        [
          CLI,
          'serve',
          '--port',
          '0',
          ...store,
          '--poll-interval',
          '1',
          '--ci-max-parallel',
          String(opts.ciMaxParallel ?? 2),
          '--log-level',
          'info',
          ...(opts.serveArgs ?? []),
        ],
        { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup ?? false },
      ),
      token,
    );
    const address = await listeningAddress(server.child, () => server.stdout, 20_000);
    if (!address) {
      server.child.kill('SIGKILL');
      throw new Error(`greenline serve did not start:\n${server.stdout}\n${server.stderr}`);
    }
    server.address = address;
    return server;
  }

  get url(): string {
    return this.address;
  }

  async api(endpoint: string, body: unknown): Promise<ApiReply> {
    const res = await fetch(`${this.url}/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': this.token },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      /* a text answer (getTestRunLog) */
    }
    return { status: res.status, json };
  }

  /** Every state transition the server logged so far, oldest first. */
  transitions(): Transition[] {
    return this.logLines()
      .filter((l) => l.msg === 'transition')
      .map((l) => ({
        pr: l.pr as number,
        from: l.from as string | null,
        to: l.to as string,
        reason: l.reason as string,
        ...(typeof l.runId === 'string' ? { runId: l.runId } : {}),
      }));
  }

  /**
   * What happened, for the report of a failed test: every transition, one per line
   * (`#7 TESTING -> PENDING_FAILURE TEST_RUN_REQUIRED_STATUS_FAILED run 1a2b3c4d`), what CI ran, and
   * the warnings and errors the server logged.
   */
  story(ci: CiRecord[] = []): string {
    const transitions = this.transitions().map(
      (t) => `#${t.pr} ${t.from ?? '-'} -> ${t.to} ${t.reason}${t.runId ? ` run ${t.runId.slice(0, 8)}` : ''}`,
    );
    const runs = ci.map(
      (r) => `CI run ${r.runId.slice(0, 8)} on ${r.sha.slice(0, 8)}: PRs ${r.prNumbers.join(', ')}, exit ${r.exitCode}`,
    );
    return ['Server transitions:', ...transitions, ...runs, ...this.problems()].join('\n');
  }

  /** Log lines at warn level or above (what an operator would be alerted to). */
  problems(): string[] {
    return this.logLines()
      .filter((l) => (l.level as number) >= 40)
      .map((l) => JSON.stringify(l));
  }

  /** Every JSON line the server logged so far (pino: `time` in ms, `msg`, and the line's fields). */
  logLines(): Record<string, unknown>[] {
    return this.stderr.split('\n').flatMap((line) => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  /** SIGKILL (a crash: nothing is cleaned up) and wait until the process is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  /**
   * SIGKILL to the server's whole process group (started with `ownProcessGroup`): the server and the
   * git commands it runs die at once; what left the group (CI commands run in sessions of their own)
   * does not. Waits until the server is gone.
   */
  async killGroup(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid!, 'SIGKILL');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    await this.exited;
  }

  /** SIGTERM and wait for a clean exit; SIGKILL if it does not come. Resolves to the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      // The built-in CI gives commands 10 s between SIGTERM and SIGKILL; allow for it.
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exited;
  }
}

const running = new Set<ChildProcess>();

/** Kills whatever server a failed test left running (afterAll safety net). */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}
