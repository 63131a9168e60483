/**
 * What a killed server leaves of its built-in CI, and how the next one on the data dir removes it:
 * process groups still running (recorded in `<dataDir>/ci-processes`, verified before they are
 * signalled), work trees and their registrations in the mirror. A killed predecessor is played by a
 * CommandCi that is simply abandoned while its commands run: nothing of it stops them.
 */
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCommandCi, type CommandCi } from '../../../src/ci/command/index.js';
import { spawnGroup, terminateGroup } from '../../../src/ci/command/process-group.js';
import { CI_TAG_ENV, ProcessRecords } from '../../../src/ci/command/process-records.js';
import { addWorktree, removeLeftoverWorktrees, removeWorktree } from '../../../src/git/worktree.js';
import { git } from '../../../src/git/git.js';
import type { CiStartRequest } from '../../../src/ci/port.js';
import { makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';
import { waitUntil } from '../../helpers/wait-until.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let cis: CommandCi[];
/** Process groups a test started itself, stopped afterwards whatever happened. */
let groups: number[];
let devNull: number;

beforeEach(async () => {
  fx = await makeGitFixture();
  cis = [];
  groups = [];
  devNull = openSync('/dev/null', 'w');
});
afterEach(async () => {
  await Promise.all(cis.map((c) => c.stop()));
  await Promise.all(groups.map((g) => terminateGroup(g, 100)));
  closeSync(devNull);
  await fx.cleanup();
});

const makeCi = (): CommandCi => {
  const c = createCommandCi({
    dataDir: fx.dataDir,
    maxParallel: 4,
    logger,
    onStatus: () => undefined,
    killGraceMs: 300,
  });
  cis.push(c);
  return c;
};

const request = (runId: string, ciCommand: string): CiStartRequest => ({
  repo: fx.binding({ ciCommand }),
  runId,
  branch: `greenline-merge/pr-4/${runId}`,
  sha: fx.baseSha,
  targetBranch: 'main',
  prNumbers: [4],
  timeoutMinutes: 10,
});

/** A process is alive while /proc knows it and it is not a zombie waiting for its parent. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitForPid(file: string): Promise<number> {
  const written = () => (existsSync(file) && readFileSync(file, 'utf8').trim()) || undefined;
  return Number(await waitUntil(`${file} to be written`, 10_000, written, undefined, 20));
}

const namesIn = async (dir: string): Promise<string[]> => (existsSync(dir) ? (await readdir(dir)).sort() : []);
const mirrorDir = (): string => path.join(fx.dataDir, 'repos', 'local', 'acme', 'widgets.git');
const worktreeList = async (): Promise<string[]> =>
  (await git(['worktree', 'list', '--porcelain'], { cwd: mirrorDir() }))
    .split('\n')
    .filter((l) => l.startsWith('worktree '));

describe('what a killed server left of its CI', () => {
  it('the next one on the data dir stops the leftover process groups and removes their work trees; its own runs go on', async () => {
    const dead = makeCi();
    const pids = path.join(fx.root, 'pids');
    // One command still in its shell, one whose shell exited leaving a background process behind
    // (as `./start-db.sh &` does): both survive their server.
    await dead.start(request('run-busy', `sleep 60 & echo $! > ${pids}-busy; wait`));
    await dead.start(request('run-bg', `sleep 60 & echo $! > ${pids}-bg; exec sleep 60`));
    const busy = await waitForPid(`${pids}-busy`);
    const bg = await waitForPid(`${pids}-bg`);
    expect(await namesIn(path.join(fx.dataDir, 'ci-processes'))).toEqual(['run-bg.json', 'run-busy.json']);
    expect(await namesIn(path.join(fx.dataDir, 'worktrees'))).toEqual(['run-bg', 'run-busy']);

    const next = makeCi();
    await next.start(request('run-own', `sleep 60 & echo $! > ${pids}-own; wait`));
    const own = await waitForPid(`${pids}-own`);
    await next.cleanUp();

    expect(alive(busy)).toBe(false);
    expect(alive(bg)).toBe(false);
    expect(alive(own)).toBe(true);
    expect(await namesIn(path.join(fx.dataDir, 'ci-processes'))).toEqual(['run-own.json']);
    expect(await namesIn(path.join(fx.dataDir, 'worktrees'))).toEqual(['run-own']);
    expect((await worktreeList()).map((l) => path.basename(l))).toEqual(['widgets.git', 'run-own']);

    // Taken over again later: its own run still is not touched.
    await next.cleanUp();
    expect(alive(own)).toBe(true);
    await next.stop();
    expect(alive(own)).toBe(false);
    expect(await namesIn(path.join(fx.dataDir, 'ci-processes'))).toEqual([]);
  });

  it('cleans up once per process: a later takeover starts no git process (counted by git: GIT_TRACE2_EVENT)', async () => {
    const dead = makeCi();
    const pid = path.join(fx.root, 'pid-left');
    await dead.start(request('run-left', `echo $$ > ${pid}; exec sleep 60`));
    // Its command runs: the git processes that set up its work tree are over and none of them can
    // write to the trace below.
    await waitForPid(pid);
    const next = makeCi();
    const trace = path.join(fx.root, 'trace.json');
    await writeFile(trace, '');
    process.env.GIT_TRACE2_EVENT = trace;
    try {
      await next.cleanUp();
      const first = readFileSync(trace, 'utf8').length;
      expect(first).toBeGreaterThan(0);
      expect(await namesIn(path.join(fx.dataDir, 'worktrees'))).toEqual([]);
      await next.cleanUp();
      expect(readFileSync(trace, 'utf8').length).toBe(first);
    } finally {
      delete process.env.GIT_TRACE2_EVENT;
    }
  });

  it('a recorded group is signalled only when it is still the one recorded (pid reuse) or carries its tag', async () => {
    const records = new ProcessRecords(path.join(fx.dataDir, 'ci-processes'));
    const tagged = (tag: string): Record<string, string> =>
      ({ ...process.env, [CI_TAG_ENV]: tag }) as Record<string, string>;

    // Ours: a leader whose start time is the recorded one.
    const oursTag = ProcessRecords.newTag();
    const ours = spawnGroup('exec sleep 60', { cwd: fx.root, env: tagged(oursTag), logFd: devNull });
    groups.push(ours.pgid);
    records.record('run-ours', oursTag, ours.pgid);

    // Ours too: the leader exited, a process of its group with the record's tag is left.
    const orphanPid = path.join(fx.root, 'orphan');
    const orphanTag = ProcessRecords.newTag();
    const orphaned = spawnGroup(`sleep 60 & echo $! > ${orphanPid}`, {
      cwd: fx.root,
      env: tagged(orphanTag),
      logFd: devNull,
    });
    groups.push(orphaned.pgid);
    records.record('run-orphan', orphanTag, orphaned.pgid);
    const orphan = await waitForPid(orphanPid);
    await orphaned.exited;

    // Ours too: its server was killed between the spawn and the record of its group.
    const cutTag = ProcessRecords.newTag();
    records.record('run-cut', cutTag, null);
    const cut = spawnGroup('exec sleep 60', { cwd: fx.root, env: tagged(cutTag), logFd: devNull });
    groups.push(cut.pgid);

    // Not ours: the recorded group id now belongs to a process that started later (the number
    // reused), which carries another tag.
    const stranger = spawnGroup('exec sleep 60', { cwd: fx.root, env: tagged('another'), logFd: devNull });
    groups.push(stranger.pgid);
    records.record('run-old', ProcessRecords.newTag(), stranger.pgid);
    const file = path.join(fx.dataDir, 'ci-processes', 'run-old.json');
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...rec, startTicks: rec.startTicks - 1 }));

    // Not ours: leader gone, the process left in the group lacks the record's tag.
    const unmarkedPid = path.join(fx.root, 'unmarked');
    const unmarkedTag = ProcessRecords.newTag();
    const unmarked = spawnGroup(`env -u ${CI_TAG_ENV} sleep 60 & echo $! > ${unmarkedPid}`, {
      cwd: fx.root,
      env: tagged(unmarkedTag),
      logFd: devNull,
    });
    groups.push(unmarked.pgid);
    records.record('run-unmarked', unmarkedTag, unmarked.pgid);
    const unmarkedChild = await waitForPid(unmarkedPid);
    await unmarked.exited;
    // Until `env` ran, the forked shell still carries the tag.
    await waitUntil(
      `process ${unmarkedChild} to run without the tag`,
      10_000,
      () => !readFileSync(`/proc/${unmarkedChild}/environ`, 'utf8').includes(`${CI_TAG_ENV}=`) || undefined,
      undefined,
      10,
    );
    // A record cut short while it was written, of a run of its own and of another.
    await writeFile(path.join(fx.dataDir, 'ci-processes', 'run-gone.json.tmp'), '{"runId');
    await writeFile(path.join(fx.dataDir, 'ci-processes', 'run-own.json.tmp'), '{"runId');

    const stopped = await records.stopLeftoverGroups((runId) => runId === 'run-own', 300);
    expect(stopped.map((r) => r.runId).sort()).toEqual(['run-cut', 'run-orphan', 'run-ours']);
    expect(alive(ours.pgid)).toBe(false);
    expect(alive(orphan)).toBe(false);
    expect(alive(cut.pgid)).toBe(false);
    expect(alive(stranger.pgid)).toBe(true);
    expect(alive(unmarkedChild)).toBe(true);
    expect(await namesIn(path.join(fx.dataDir, 'ci-processes'))).toEqual(['run-own.json.tmp']);
  });

  it('a registration left locked by an interrupted `git worktree add` is removed, which `git worktree prune` alone does not do', async () => {
    const root = path.join(fx.dataDir, 'worktrees');
    await addWorktree(fx.remote, path.join(root, 'run-done'), fx.baseSha);
    await addWorktree(fx.remote, path.join(root, 'run-kept'), fx.baseSha);
    const registrations = path.join(fx.remote, 'worktrees');
    // Killed during `add`: the entry exists and is locked, its gitdir not yet written.
    await mkdir(path.join(registrations, 'run-cut'), { recursive: true });
    await writeFile(path.join(registrations, 'run-cut', 'locked'), 'initializing\n');
    await mkdir(path.join(root, 'run-cut'));
    await git(['worktree', 'prune'], { cwd: fx.remote });
    expect(await namesIn(registrations)).toEqual(['run-cut', 'run-done', 'run-kept']);

    const removed = await removeLeftoverWorktrees(root, [fx.remote], (name) => name === 'run-kept');
    expect(removed.sort()).toEqual(['run-cut', 'run-done']);
    expect(await namesIn(registrations)).toEqual(['run-kept']);
    expect(await namesIn(root)).toEqual(['run-kept']);
    expect(await readdir(path.join(root, 'run-kept'))).toContain('README.md');
    await removeWorktree(fx.remote, path.join(root, 'run-kept')); // as the run's end does
  });
});
