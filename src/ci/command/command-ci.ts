/**
 * The built-in CI: runs the repository's `ciCommand` on a checkout of each test commit and reports
 * the outcome as a commit status (context `greenline/ci` by default) through the status sink.
 *
 * A run goes: queued (at most `maxParallel` run at once; the rest wait in FIFO order, reported
 * `pending`) → checked out (worktree.ts) → running (`/bin/sh -c` in its own process group) → finished:
 *
 * | how it ended                       | status  | description                      |
 * |------------------------------------|---------|----------------------------------|
 * | exit code 0                        | success | exited with code 0 after Ns      |
 * | other exit code, or a crash signal | failure | exited with code N / killed by S |
 * | SIGTERM, SIGKILL, SIGINT or SIGHUP | cancelled | killed by S (not by greenline) |
 * |   from something else than greenline (the OOM killer, an operator) |       |     |
 * | `timeoutMinutes` passed            | error   | timed out after N minutes        |
 * | no command, commit or checkout     | error   | what was missing                 |
 * | cancelled (or the runner stopped)  | none    | (the caller no longer waits)     |
 *
 * A run started again for the same run id with a higher `attempt` (the queue's `retryCi`) runs the
 * command again on the same commit, its output appended to the same log.
 *
 * The command's environment: GREENLINE_TEST_RUN_ID, GREENLINE_TEST_SHA, GREENLINE_TEST_BRANCH,
 * GREENLINE_TARGET_BRANCH, GREENLINE_PR_NUMBERS, and, when the forge can compare commits,
 * GREENLINE_BASE_SHA (what the run's own PRs were merged onto) and GREENLINE_CHANGED_FILES (a file
 * of the paths changed from there to the test commit, one a line, kept beside the log).
 *
 * Timeout and cancel stop the whole group: SIGTERM, then SIGKILL after a grace period. Processes
 * the command left running when it exited are stopped the same way. The output of the command is
 * kept in `${dataDir}/logs/<runId>.log`.
 *
 * A process killed without stopping its runs (kill -9, a crash) leaves their process groups running
 * (each is a session of its own, out of reach of a signal to the server's group) and their work trees
 * on disk. Every command is recorded in the data dir, from just before its spawn until its group is
 * gone, and tagged in its environment (process-records.ts); `cleanUp`, at start-up and when queues
 * are taken over, stops the recorded groups still alive that are verified to be ours and removes the
 * work trees of runs not running in this process (worktree.ts).
 */
import { mkdir, open, readFile, appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { systemClock, type TimerClock } from '../../lib/clock.js';
import type { RepoBinding } from '../../forge/port.js';
import type { CiPort, CiStartRequest, CiStatusSink } from '../port.js';
import type { CiStatus } from '../../forge/port.js';
import { listMirrorDirs, Mirrors } from '../../git/mirror.js';
import { spawnGroup, terminateGroup, type Exit } from './process-group.js';
import { CI_TAG_ENV, ProcessRecords } from './process-records.js';
import { addWorktree, removeLeftoverWorktrees, removeWorktree } from '../../git/worktree.js';

export interface CommandCiOptions {
  dataDir: string;
  maxParallel: number;
  onStatus: CiStatusSink;
  logger: Logger;
  statusContext?: string;
  /** Time of the durations, the `timeoutMinutes` deadline and the kill grace period (default: the system clock). */
  clock?: TimerClock;
  /** Time between SIGTERM and SIGKILL when stopping a command (default 10 s). */
  killGraceMs?: number;
  /**
   * Environment of the commands besides the GREENLINE_* variables. Default: PATH, HOME, locale and
   * the like from this process, never the rest of it (the service's own secrets stay out of CI).
   */
  env?: Record<string, string>;
}

interface Run {
  req: CiStartRequest;
  cancelled: boolean;
  timedOut: boolean;
  pgid: number | null;
  done: Promise<void>;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PASSED_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TERM'];
/** Signals that stop a command from outside (an operator, the OOM killer): the run was cancelled, not failed. */
const STOP_SIGNALS: ReadonlySet<string> = new Set(['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGHUP']);
/** Commit status descriptions are short on forges (GitHub: 140 characters). */
const MAX_DESCRIPTION = 140;

export class CommandCi implements CiPort {
  private readonly waiting: Run[] = [];
  private readonly active = new Map<string, Run>();
  /** Every run id ever started here, with its latest attempt: start is idempotent per run id and attempt. */
  private readonly started = new Map<string, number>();
  private readonly mirrors: Mirrors;
  private readonly context: string;
  private readonly clock: TimerClock;
  private readonly graceMs: number;
  private readonly env: Record<string, string>;
  private readonly groups: ProcessRecords;
  /** Absolute: git resolves a relative work tree path against the mirror, the command's cwd against ours. */
  private readonly dataDir: string;
  private stopped = false;
  /** The clean-up of what an earlier process left (see `cleanUp`). */
  private cleaned: Promise<void> | null = null;

  constructor(private readonly opts: CommandCiOptions) {
    if (!Number.isInteger(opts.maxParallel) || opts.maxParallel < 1) {
      throw new Error(`maxParallel must be a positive integer, got ${opts.maxParallel}`);
    }
    this.dataDir = path.resolve(opts.dataDir);
    this.mirrors = new Mirrors({ dataDir: this.dataDir, fetchTtlMs: 2_000, networkTimeoutMs: 600_000 });
    this.context = opts.statusContext ?? 'greenline/ci';
    this.clock = opts.clock ?? systemClock;
    this.graceMs = opts.killGraceMs ?? 10_000;
    this.env =
      opts.env ?? Object.fromEntries(PASSED_ENV.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
    this.groups = new ProcessRecords(path.join(this.dataDir, 'ci-processes'), this.clock);
  }

  async start(req: CiStartRequest): Promise<void> {
    if (this.stopped) throw new Error('the command CI is stopped');
    if (!SAFE_ID.test(req.runId)) throw new Error(`invalid test run id "${req.runId}"`);
    const attempt = req.attempt ?? 0;
    if ((this.started.get(req.runId) ?? -1) >= attempt) return;
    this.started.set(req.runId, attempt);
    await this.active.get(req.runId)?.done; // an earlier attempt still finishing (it just reported)
    const run: Run = { req, cancelled: false, timedOut: false, pgid: null, done: Promise.resolve() };
    if (this.active.size < this.opts.maxParallel) return this.begin(run);
    this.waiting.push(run);
    await this.report(run, 'pending', `waiting for a free runner (${this.opts.maxParallel} busy)`);
  }

  async cancel(runId: string): Promise<void> {
    const i = this.waiting.findIndex((r) => r.req.runId === runId);
    if (i >= 0) {
      this.waiting.splice(i, 1);
      return;
    }
    const run = this.active.get(runId);
    if (!run) return;
    run.cancelled = true;
    if (run.pgid !== null) await terminateGroup(run.pgid, this.graceMs, this.clock);
    await run.done;
  }

  async getLog(runId: string): Promise<string | null> {
    if (!SAFE_ID.test(runId)) return null;
    try {
      return await readFile(this.logPath(runId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * Stops the CI process groups an earlier process on this data dir left running and removes its
   * work trees (with their registrations in the mirrors): everything of runs not started here. Once
   * per process: what an earlier process left is there from the start, so once it is removed a later
   * takeover finds nothing more (and need not run `git worktree prune` in every mirror again). A
   * clean-up that failed is tried again at the next call.
   */
  cleanUp(): Promise<void> {
    this.cleaned ??= this.removeLeftovers().catch((err: unknown) => {
      this.cleaned = null;
      throw err;
    });
    return this.cleaned;
  }

  private async removeLeftovers(): Promise<void> {
    const ours = (runId: string): boolean => this.started.has(runId);
    const stopped = await this.groups.stopLeftoverGroups(ours, this.graceMs);
    const worktrees = await removeLeftoverWorktrees(
      path.join(this.dataDir, 'worktrees'),
      await listMirrorDirs(this.dataDir),
      ours,
    );
    if (stopped.length > 0 || worktrees.length > 0) {
      this.opts.logger.info(
        { processGroups: stopped, worktrees },
        'stopped CI processes and removed work trees an earlier process left behind',
      );
    }
  }

  /** Stops every run (queued ones never start) and waits until their processes are gone. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.length = 0;
    await Promise.all([...this.active.keys()].map((id) => this.cancel(id)));
  }

  /** Takes a runner slot; resolves once the run reported `pending` (the run goes on in the background). */
  private begin(run: Run): Promise<void> {
    this.active.set(run.req.runId, run);
    let reported!: () => void;
    const pending = new Promise<void>((resolve) => (reported = resolve));
    run.done = this.execute(run, reported)
      .catch((err: unknown) => this.opts.logger.error({ err, runId: run.req.runId }, 'command CI run failed'))
      .finally(() => {
        reported();
        this.active.delete(run.req.runId);
        const next = this.stopped ? undefined : this.waiting.shift();
        if (next) void this.begin(next);
      });
    return pending;
  }

  private async execute(run: Run, reported: () => void): Promise<void> {
    const { req } = run;
    const command = req.repo.ciCommand;
    await this.report(run, 'pending', command ? `running: ${command}` : 'starting');
    reported();
    if (!command) return this.report(run, 'error', 'no CI command is configured for this repository');

    const mirror = this.mirrors.get(gitBinding(req.repo));
    const workDir = path.join(this.dataDir, 'worktrees', req.runId);
    const logPath = this.logPath(req.runId);
    await mkdir(path.dirname(logPath), { recursive: true });
    await appendFile(
      logPath,
      `# greenline test run ${req.runId}${req.attempt ? ` (retry ${req.attempt})` : ''}: ${req.branch} at ${req.sha}, PRs ${req.prNumbers.map((n) => `#${n}`).join(', ')}\n`,
    );
    try {
      const missing = await mirror.ensureCommits([req.sha]);
      if (missing.length > 0) throw new Error(`commit ${req.sha} is not on the remote`);
      await addWorktree(mirror.dir, workDir, req.sha);
    } catch (err) {
      await appendFile(logPath, `# checkout failed: ${String(err)}\n`);
      if (!run.cancelled) await this.report(run, 'error', `checkout failed: ${(err as Error).message}`);
      return;
    }

    let exit: Exit | null = null;
    const startedAt = this.clock.now();
    if (!run.cancelled) {
      const log = await open(logPath, 'a');
      await log.write(`$ ${command}\n`);
      const tag = ProcessRecords.newTag();
      this.recordGroup(req.runId, tag, null);
      const proc = spawnGroup(command, {
        cwd: workDir,
        env: { ...(await this.commandEnv(req)), [CI_TAG_ENV]: tag },
        logFd: log.fd,
      });
      const cancelTimeout =
        req.timeoutMinutes > 0
          ? this.clock.after(req.timeoutMinutes * 60_000, () => {
              run.timedOut = true;
              void terminateGroup(proc.pgid, this.graceMs, this.clock);
            })
          : undefined;
      if (proc.pgid > 0) this.recordGroup(req.runId, tag, proc.pgid);
      run.pgid = proc.pgid;
      await log.close();
      exit = await proc.exited;
      cancelTimeout?.();
      await terminateGroup(proc.pgid, this.graceMs, this.clock); // whatever the command left behind
      await this.groups.forget(req.runId);
    }
    await removeWorktree(mirror.dir, workDir);

    const seconds = Math.round((this.clock.now() - startedAt) / 1000);
    const [state, description]: [CiStatus['state'], string] =
      run.cancelled || !exit
        ? ['error', 'cancelled']
        : run.timedOut
          ? ['error', `timed out after ${req.timeoutMinutes} minutes`]
          : exit.error
            ? ['error', `could not start /bin/sh: ${exit.error.message}`]
            : exit.code === 0
              ? ['success', `exited with code 0 after ${seconds}s`]
              : exit.signal !== null && STOP_SIGNALS.has(exit.signal)
                ? ['cancelled', `killed by ${exit.signal} (not by greenline)`]
                : [
                    'failure',
                    exit.code !== null ? `exited with code ${exit.code} after ${seconds}s` : `killed by ${exit.signal}`,
                  ];
    await appendFile(logPath, `# ${description}\n`);
    if (!run.cancelled) await this.report(run, state, description);
  }

  /** Records a command before and after its spawn; a record that cannot be written is logged. */
  private recordGroup(runId: string, tag: string, pgid: number | null): void {
    try {
      this.groups.record(runId, tag, pgid);
    } catch (err) {
      this.opts.logger.warn({ err, runId }, 'CI process group not recorded: a crash now would leave it running');
    }
  }

  /**
   * The command's environment; with the run's changes, GREENLINE_BASE_SHA and GREENLINE_CHANGED_FILES,
   * the path of a file beside the run's log holding one changed path per line.
   */
  private async commandEnv(req: CiStartRequest): Promise<Record<string, string>> {
    const env: Record<string, string> = {
      ...this.env,
      GREENLINE_TEST_RUN_ID: req.runId,
      GREENLINE_TARGET_BRANCH: req.targetBranch,
      GREENLINE_PR_NUMBERS: req.prNumbers.join(','),
      GREENLINE_TEST_SHA: req.sha,
      GREENLINE_TEST_BRANCH: req.branch,
    };
    if (!req.changes) return env;
    const listPath = path.join(this.dataDir, 'logs', `${req.runId}.changed-files`);
    await writeFile(listPath, req.changes.files.map((f) => `${f}\n`).join(''));
    return { ...env, GREENLINE_BASE_SHA: req.changes.baseSha, GREENLINE_CHANGED_FILES: listPath };
  }

  private logPath(runId: string): string {
    return path.join(this.dataDir, 'logs', `${runId}.log`);
  }

  private async report(run: Run, state: CiStatus['state'], description: string): Promise<void> {
    const status: CiStatus = { context: this.context, state, description: description.slice(0, MAX_DESCRIPTION) };
    try {
      await this.opts.onStatus({ runId: run.req.runId, status });
    } catch (err) {
      this.opts.logger.error({ err, runId: run.req.runId, status }, 'reporting a CI status failed');
    }
  }
}

/**
 * Where the commit can be fetched from: the remote of a git-forge repository; for a GitHub
 * repository, its https clone URL (credentials come from git's own configuration).
 */
function gitBinding(repo: RepoBinding): RepoBinding {
  if (repo.forge === 'git') return repo;
  const { host, owner, name } = repo.repo;
  return { ...repo, remote: `https://${host}/${owner}/${name}.git` };
}
