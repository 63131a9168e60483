/**
 * What killed greenline processes may leave behind, looked up where it would be: test branches on the
 * remote, CI work trees and their registrations in the data dirs' mirrors, CI process records, and
 * CI processes still running (found in /proc by a marker variable the CI script exports).
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitRemote } from './git-remote.js';
import { WaitTimeout, waitUntil } from '../helpers/wait-until.js';

export interface Leftovers {
  /** `greenline-merge/*` branches on the remote. */
  branches: string[];
  /** `<data dir>/worktrees/<run>` directories and `<mirror>/worktrees/<id>` registrations. */
  worktrees: string[];
  /** `<data dir>/ci-processes/<run>.json` records. */
  records: string[];
  /** Processes carrying the CI marker: pid, command line and test run. */
  processes: string[];
}

const namesIn = async (dir: string): Promise<string[]> => (existsSync(dir) ? readdir(dir) : []);

/** Pids of the processes whose environment holds `name=value`. */
export async function processesWith(name: string, value: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0').includes(`${name}=${value}`))
        pids.push(Number(entry));
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return pids;
}

export async function findLeftovers(
  remote: GitRemote,
  dataDirs: string[],
  marker: { name: string; value: string },
): Promise<Leftovers> {
  const worktrees: string[] = [];
  const records: string[] = [];
  for (const dataDir of dataDirs) {
    for (const run of await namesIn(path.join(dataDir, 'worktrees')))
      worktrees.push(`${path.basename(dataDir)}/worktrees/${run}`);
    for (const host of await namesIn(path.join(dataDir, 'repos'))) {
      for (const owner of await namesIn(path.join(dataDir, 'repos', host))) {
        for (const mirror of await namesIn(path.join(dataDir, 'repos', host, owner))) {
          for (const id of await namesIn(path.join(dataDir, 'repos', host, owner, mirror, 'worktrees'))) {
            worktrees.push(`${path.basename(dataDir)}/repos/${host}/${owner}/${mirror}/worktrees/${id}`);
          }
        }
      }
    }
    for (const rec of await namesIn(path.join(dataDir, 'ci-processes')))
      records.push(`${path.basename(dataDir)}/ci-processes/${rec}`);
  }
  return {
    branches: (await remote.branches()).filter((b) => b.startsWith('greenline-merge/')),
    worktrees,
    records,
    processes: await Promise.all((await processesWith(marker.name, marker.value)).map(describeProcess)),
  };
}

/** `<pid> <command line> (run <GREENLINE_TEST_RUN_ID>)`, for a failure to say what was left. */
async function describeProcess(pid: number): Promise<string> {
  const read = (file: string) => readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');
  const run = (await read('environ')).split('\0').find((e) => e.startsWith('GREENLINE_TEST_RUN_ID='));
  return `${pid} ${(await read('cmdline')).split('\0').join(' ').trim()} (run ${run?.split('=')[1] ?? 'unknown'})`;
}

export const countOf = (l: Leftovers): string =>
  `${l.branches.length} test branches, ${l.worktrees.length} work trees or registrations, ${l.records.length} process records, ${l.processes.length} CI processes`;

/**
 * Leftovers once the work in flight had its time to finish (a run's branch is deleted and its work
 * tree removed by effects and CI runs that may still be under way when the last PR settles): polls
 * until nothing is left or `ms` passed, and returns what it saw last.
 */
export async function settledLeftovers(find: () => Promise<Leftovers>, ms: number): Promise<Leftovers> {
  let seen: Leftovers | undefined;
  const none = (l: Leftovers): boolean =>
    l.branches.length + l.worktrees.length + l.records.length + l.processes.length === 0;
  await waitUntil(
    'the leftovers to be cleaned up',
    ms,
    async () => {
      seen = await find();
      return none(seen) || undefined;
    },
    undefined,
    250,
  ).catch((err: unknown) => {
    if (!(err instanceof WaitTimeout)) throw err;
  });
  return seen ?? find();
}
