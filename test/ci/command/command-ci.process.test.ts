import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandCi, type CommandCi } from '../../../src/ci/command/index.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { git } from '../../../src/git/git.js';
import type { CiStartRequest, CiStatusReport } from '../../../src/ci/port.js';
import { makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';
import { waitUntil } from '../../helpers/wait-until.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let ci: CommandCi | null;
let reports: CiStatusReport[];

beforeEach(async () => {
  fx = await makeGitFixture();
  reports = [];
  ci = null;
});
afterEach(async () => {
  await ci?.stop();
  await fx.cleanup();
});

const makeCi = (opts: { maxParallel?: number; clock?: ManualClock; killGraceMs?: number } = {}): CommandCi =>
  (ci = createCommandCi({
    dataDir: fx.dataDir,
    maxParallel: opts.maxParallel ?? 2,
    logger,
    onStatus: (r) => void reports.push(r),
    ...opts,
  }));

const request = (runId: string, ciCommand: string | null, extra: Partial<CiStartRequest> = {}): CiStartRequest => ({
  repo: fx.binding({ ciCommand }),
  runId,
  branch: `greenline-merge/pr-4-5/${runId}`,
  sha: fx.baseSha,
  targetBranch: 'main',
  prNumbers: [4, 5],
  timeoutMinutes: 10,
  ...extra,
});

const statesOf = (runId: string): string[] =>
  reports.filter((r) => r.runId === runId).map((r) => `${r.status.state}: ${r.status.description}`);

/** Waits for the run's final status (anything but pending). */
function finished(runId: string, ms = 10_000): Promise<CiStatusReport> {
  return waitUntil(
    `run ${runId} to finish`,
    ms,
    () => reports.filter((r) => r.runId === runId && r.status.state !== 'pending').at(-1),
    () => statesOf(runId),
    20,
  );
}

async function waitForFile(file: string, ms = 10_000): Promise<string> {
  const written = () => (existsSync(file) && readFileSync(file, 'utf8')) || undefined;
  return (await waitUntil(`${file} to be written`, ms, written, undefined, 20)).trim();
}

/** A process is alive while /proc knows it and it is not a zombie waiting for its parent. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
  } catch {
    return false;
  }
}

const mirrorDir = (): string => path.join(fx.dataDir, 'repos', 'local', 'acme', 'widgets.git');

describe('command CI', () => {
  it('runs the command on a checkout of the test commit and reports pending then success', async () => {
    const c = makeCi();
    await c.start(request('run-ok', 'test "$(cat README.md)" = hello && echo checked out fine'));
    const final = await finished('run-ok');
    expect(final.status).toMatchObject({ context: 'greenline/ci', state: 'success' });
    expect(statesOf('run-ok')).toEqual([
      'pending: running: test "$(cat README.md)" = hello && echo checked out fine',
      expect.stringMatching(/^success: exited with code 0 after \d+s$/),
    ]);
    const log = await c.getLog('run-ok');
    expect(log).toContain('$ test "$(cat README.md)" = hello');
    expect(log).toContain('checked out fine\n');
    expect(log).toMatch(/# exited with code 0 after \d+s\n$/);
    expect(await readFile(path.join(fx.dataDir, 'logs', 'run-ok.log'), 'utf8')).toBe(log);
    // The checkout is gone once the run finished.
    expect(existsSync(path.join(fx.dataDir, 'worktrees', 'run-ok'))).toBe(false);
    expect((await git(['worktree', 'list'], { cwd: mirrorDir() })).split('\n')).toHaveLength(1);
  });

  it('runs the command in its checkout when the data dir is given relative to the working directory', async () => {
    const c = createCommandCi({
      dataDir: path.relative(process.cwd(), fx.dataDir),
      maxParallel: 1,
      logger,
      onStatus: (r) => void reports.push(r),
    });
    ci = c;
    await c.start(request('run-relative', 'test "$(cat README.md)" = hello && pwd'));
    expect((await finished('run-relative')).status).toMatchObject({ state: 'success' });
    expect(await c.getLog('run-relative')).toContain(`${path.join(fx.dataDir, 'worktrees', 'run-relative')}\n`);
  });

  it('measures the run on its clock', async () => {
    const clock = new ManualClock();
    const c = makeCi({ clock });
    const [running, go] = [path.join(fx.root, 'running'), path.join(fx.root, 'go')];
    await c.start(request('run-timed', `echo yes > ${running}; while [ ! -e ${go} ]; do sleep 0.02; done`));
    await waitForFile(running);
    clock.advance(42_000);
    writeFileSync(go, '');
    expect((await finished('run-timed')).status).toMatchObject({
      state: 'success',
      description: 'exited with code 0 after 42s',
    });
  });

  it('reports failure with the exit code, keeping the output', async () => {
    const c = makeCi();
    await c.start(request('run-fail', 'echo boom >&2; exit 3'));
    expect((await finished('run-fail')).status).toMatchObject({
      state: 'failure',
      description: expect.stringMatching(/^exited with code 3 after/),
    });
    expect(await c.getLog('run-fail')).toContain('boom\n');
  });

  it('a command killed from outside (not by greenline) is cancelled, not failed', async () => {
    const c = makeCi();
    await c.start(request('run-killed', 'kill -KILL $$'));
    expect((await finished('run-killed')).status).toMatchObject({
      state: 'cancelled',
      description: 'killed by SIGKILL (not by greenline)',
    });
  });

  it('a crash signal is a failure', async () => {
    const c = makeCi();
    await c.start(request('run-segv', 'kill -SEGV $$'));
    expect((await finished('run-segv')).status).toMatchObject({ state: 'failure', description: 'killed by SIGSEGV' });
  });

  it('runs the command again on the same commit for a retry, appending to the same log', async () => {
    const c = makeCi();
    const marker = path.join(fx.dataDir, 'attempted');
    // Fails the first time, passes once the marker exists: a flaky check.
    const flaky = `if [ -e ${marker} ]; then echo second; else touch ${marker}; echo first; exit 1; fi`;
    await c.start(request('run-flaky', flaky));
    expect((await finished('run-flaky')).status.state).toBe('failure');
    reports = [];
    await c.start(request('run-flaky', flaky)); // the same attempt again: nothing happens
    await c.start(request('run-flaky', flaky, { attempt: 1 }));
    expect((await finished('run-flaky')).status.state).toBe('success');
    const log = (await c.getLog('run-flaky'))!;
    expect(log).toContain('first\n');
    expect(log).toContain('(retry 1)');
    expect(log).toContain('second\n');
    expect(statesOf('run-flaky').filter((s) => !s.startsWith('pending'))).toHaveLength(1);
  });

  it('passes the run in GREENLINE_* variables and keeps the service environment out', async () => {
    process.env.GREENLINE_TEST_ONLY_SECRET = 'hunter2';
    try {
      const c = makeCi();
      await c.start(
        request(
          'run-env',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion with a default
          'echo "[$GREENLINE_TEST_RUN_ID|$GREENLINE_TARGET_BRANCH|$GREENLINE_PR_NUMBERS|$GREENLINE_TEST_SHA|${GREENLINE_TEST_ONLY_SECRET:-none}]"',
        ),
      );
      await finished('run-env');
      expect(await c.getLog('run-env')).toContain(`[run-env|main|4,5|${fx.baseSha}|none]`);
    } finally {
      delete process.env.GREENLINE_TEST_ONLY_SECRET;
    }
  });

  it('gives the command the base of the run and a file of the paths changed from it', async () => {
    const c = makeCi();
    const changes = { baseSha: 'b'.repeat(40), files: ['src/app.txt', 'web/a b.css'] };
    await c.start(
      request('run-changes', 'echo "base=$GREENLINE_BASE_SHA"; cat "$GREENLINE_CHANGED_FILES"', { changes }),
    );
    await c.start(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion with a default
      request('run-unknown', 'echo "[${GREENLINE_BASE_SHA:-none}|${GREENLINE_CHANGED_FILES:-none}]"'),
    );
    expect((await finished('run-changes')).status.state).toBe('success');
    expect(await c.getLog('run-changes')).toContain(`base=${changes.baseSha}\nsrc/app.txt\nweb/a b.css\n`);
    // A forge that cannot compare commits: the variables are not set.
    await finished('run-unknown');
    expect(await c.getLog('run-unknown')).toContain('[none|none]');
  });

  it('times out on its clock: reports an error and kills the whole process group, also processes ignoring SIGTERM', async () => {
    const clock = new ManualClock();
    const c = makeCi({ clock, killGraceMs: 10_000 });
    const pids = path.join(fx.root, 'pids');
    await c.start(
      request('run-slow', `trap '' TERM; sleep 30 & echo $! > ${pids}.child; echo $$ > ${pids}.shell; wait`, {
        timeoutMinutes: 1,
      }),
    );
    const child = Number(await waitForFile(`${pids}.child`));
    const shell = Number(await waitForFile(`${pids}.shell`));
    expect(alive(child) && alive(shell)).toBe(true);
    clock.advance(60_000); // the timeout: SIGTERM, which both ignore
    expect(alive(child) && alive(shell)).toBe(true);
    clock.advance(10_000); // the grace period: SIGKILL
    expect((await finished('run-slow')).status).toMatchObject({
      state: 'error',
      description: 'timed out after 1 minutes',
    });
    expect(alive(child)).toBe(false);
    expect(alive(shell)).toBe(false);
    expect(await c.getLog('run-slow')).toMatch(/# timed out after 1 minutes\n$/);
  });

  it('cancels a running command: the group dies, no outcome is reported; cancelling again is fine', async () => {
    const c = makeCi();
    const pid = path.join(fx.root, 'pid');
    await c.start(request('run-cancel', `sleep 30 & echo $! > ${pid}; wait`));
    const child = Number(await waitForFile(pid));
    // cancel resolves once the run has ended: nothing of it can report after that.
    await c.cancel('run-cancel');
    expect(alive(child)).toBe(false);
    await c.cancel('run-cancel');
    await c.cancel('never-started');
    expect(statesOf('run-cancel')).toEqual([`pending: running: sleep 30 & echo $! > ${pid}; wait`]);
    expect(existsSync(path.join(fx.dataDir, 'worktrees', 'run-cancel'))).toBe(false);
  });

  it('queues runs beyond maxParallel, reports them pending, and never starts a cancelled queued run', async () => {
    const c = makeCi({ maxParallel: 1 });
    await c.start(request('run-first', 'sleep 0.3'));
    await c.start(request('run-queued', 'echo should not run'));
    await c.start(request('run-next', 'true'));
    expect(statesOf('run-queued')).toEqual(['pending: waiting for a free runner (1 busy)']);
    await c.cancel('run-queued');
    await finished('run-first');
    // Queued runs start in order: once the run queued after it has finished, the cancelled one had its turn.
    await finished('run-next');
    expect(statesOf('run-queued')).toEqual(['pending: waiting for a free runner (1 busy)']);
    expect(await c.getLog('run-queued')).toBeNull();
  });

  it('never runs more than maxParallel commands at once, and runs them all', async () => {
    const c = makeCi({ maxParallel: 2 });
    const times = path.join(fx.root, 'times');
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const id of ids) {
      await c.start(
        request(id, `s=$(date +%s%N); sleep 0.3; echo "$s $(date +%s%N)" > ${times}-$GREENLINE_TEST_RUN_ID`),
      );
    }
    for (const id of ids) expect((await finished(id)).status.state).toBe('success');
    const spans = ids.map((id) => readFileSync(`${times}-${id}`, 'utf8').trim().split(' ').map(Number));
    const overlap = Math.max(...spans.map(([s]) => spans.filter(([a, b]) => a <= s && s < b).length));
    expect(overlap).toBe(2);
  });

  it('is idempotent per run id', async () => {
    const c = makeCi({ maxParallel: 1 });
    await c.start(request('run-once', 'echo once'));
    await c.start(request('run-once', 'echo once'));
    await c.start(request('run-after', 'true'));
    await finished('run-once');
    // One runner, runs in order: a second run-once would have run before run-after.
    await finished('run-after');
    expect(statesOf('run-once')).toHaveLength(2);
    expect((await c.getLog('run-once'))!.match(/^\$ echo once$/gm)).toHaveLength(1);
  });

  it('reports an error when there is no command or the commit cannot be found', async () => {
    const c = makeCi();
    await c.start(request('run-nocmd', null));
    expect((await finished('run-nocmd')).status).toMatchObject({
      state: 'error',
      description: 'no CI command is configured for this repository',
    });
    await c.start(request('run-nosha', 'true', { sha: 'e'.repeat(40) }));
    expect((await finished('run-nosha')).status).toMatchObject({
      state: 'error',
      description: `checkout failed: commit ${'e'.repeat(40)} is not on the remote`,
    });
  });

  it('stop() kills running commands, drops queued ones and refuses new runs', async () => {
    const c = makeCi({ maxParallel: 1 });
    const pid = path.join(fx.root, 'pid');
    await c.start(request('run-long', `sleep 30 & echo $! > ${pid}; wait`));
    await c.start(request('run-later', 'true'));
    const child = Number(await waitForFile(pid));
    await c.stop();
    expect(alive(child)).toBe(false);
    expect(await c.getLog('run-later')).toBeNull();
    await expect(c.start(request('run-after', 'true'))).rejects.toThrow('the command CI is stopped');
  });

  it('has no log for unknown or malformed run ids', async () => {
    const c = makeCi();
    expect(await c.getLog('unknown')).toBeNull();
    expect(await c.getLog('../../etc/passwd')).toBeNull();
    await expect(c.start(request('../escape', 'true'))).rejects.toThrow('invalid test run id "../escape"');
  });
});
