/**
 * Processes a test file started and left running, found in /proc (Linux):
 *  - descendants of this worker (by parent pid);
 *  - processes whose environment holds this file's LEAK_CHECK_OWNER mark: they inherited it from the
 *    worker, even when their parent exited and they were re-parented (a daemon a CI script started);
 *  - processes whose working directory is inside one of the file's temporary directories: the
 *    built-in CI runs commands in a worktree there, in a process group and session of their own and
 *    with only a few variables of the environment, so they carry no mark.
 * Zombies are left out: they have exited, their parent only has not read their status yet.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export const OWNER_VAR = 'LEAK_CHECK_OWNER';

export interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: with the pid, tells a process from a later one with its pid. */
  start: string;
  cmdline: string;
  cwd: string;
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null; // gone meanwhile, or not ours to read
  }
}

function stat(pid: number): { ppid: number; pgid: number; state: string; start: string } | null {
  const text = read(`/proc/${pid}/stat`);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, ppid: Number(f[1]), pgid: Number(f[2]), start: f[19]! };
}

/**
 * When the process with this pid started (clock ticks since boot), null when there is none: with the
 * pid, it names one process, where a pid alone may name a later process that was given the same number.
 */
export const startOf = (pid: number): string | null => stat(pid)?.start ?? null;

function cwdOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
  } catch {
    return '';
  }
}

const inside = (dir: string, root: string): boolean => dir === root || dir.startsWith(root + path.sep);

/** The processes that belong to the file marked `owner` with temporary directories `roots`. */
export function ownedProcesses(owner: string, roots: string[]): Proc[] {
  const all: (Proc & { state: string })[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const s = stat(pid);
    if (!s) continue;
    const cmdline = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
    all.push({ pid, ppid: s.ppid, pgid: s.pgid, start: s.start, state: s.state, cmdline, cwd: '' });
  }
  const ours = new Set<number>([process.pid]);
  // Parents come before children in no particular order: repeat until no descendant is added.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!ours.has(p.pid) && ours.has(p.ppid)) {
        ours.add(p.pid);
        grew = true;
      }
    }
  }
  const mark = `${OWNER_VAR}=${owner}`;
  return all.filter((p) => {
    if (p.state === 'Z') return false;
    p.cwd = cwdOf(p.pid);
    if (ours.has(p.pid) || roots.some((r) => inside(p.cwd, r))) return true;
    return (read(`/proc/${p.pid}/environ`) ?? '').split('\0').includes(mark);
  });
}

export const procKey = (p: Proc): string => `${p.pid}@${p.start}`;

export function describeProcess(p: Proc): string {
  return `process ${p.pid} (parent ${p.ppid}, group ${p.pgid}): ${p.cmdline.slice(0, 200) || '?'}${p.cwd ? ` [in ${p.cwd}]` : ''}`;
}
