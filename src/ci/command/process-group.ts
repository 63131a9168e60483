/**
 * A shell command in a process group of its own, so that everything it starts (test runners, their
 * workers, a server in the background) can be stopped together: signals go to `-pgid`.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock, type TimerClock } from '../../lib/clock.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the shell could not be started at all. */
  error?: Error;
}

export interface GroupProcess {
  pgid: number;
  exited: Promise<Exit>;
}

/** Runs `command` with `/bin/sh -c`, stdout and stderr to `logFd`, as the leader of a new group. */
export function spawnGroup(
  command: string,
  opts: { cwd: string; env: Record<string, string>; logFd: number },
): GroupProcess {
  const child = spawn('/bin/sh', ['-c', command], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['ignore', opts.logFd, opts.logFd],
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  return { pgid: child.pid ?? -1, exited };
}

/** Sends a signal to every process of the group; a group that is gone already is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (pgid <= 0) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** Waits until no process of the group is left, polling; false when `ms` of `clock` passed first. */
async function groupGone(pgid: number, ms: number, clock: TimerClock): Promise<boolean> {
  let expired = false;
  const cancel = clock.after(ms, () => {
    expired = true;
  });
  try {
    while (signalGroup(pgid, 0)) {
      if (expired) return false;
      await sleep(25);
    }
    return true;
  } finally {
    cancel();
  }
}

/**
 * Stops the whole group: SIGTERM, then SIGKILL for whatever is still there after `graceMs` of
 * `clock` (the grace period starts before this returns to the event loop). Resolves once the group
 * is gone (or, for processes stuck in the kernel, a second after SIGKILL).
 */
export async function terminateGroup(pgid: number, graceMs: number, clock: TimerClock = systemClock): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await groupGone(pgid, graceMs, clock)) return;
  signalGroup(pgid, 'SIGKILL');
  await groupGone(pgid, 1_000, systemClock);
}
