/**
 * The world of one end-to-end scenario: a temporary directory, a git remote with the scenario's
 * files and pull requests, the recording CI script, a `greenline serve` connected to the remote, and
 * a client for its queue. Started in a scenario's beforeAll, stopped in its afterAll.
 */
import { afterAll, beforeAll } from 'vitest';
import { writeCiScript, type CiScript } from './ci-script.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess } from './greenline-process.js';
import { QueueClient } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

export interface Scenario {
  dir: string;
  remote: GitRemote;
  ci: CiScript;
  server: GreenlineProcess;
  queue: QueueClient;
}

export interface ScenarioOptions {
  /** Part of the temporary directory's name. */
  name: string;
  /** HOST/OWNER/NAME the remote is connected as. */
  slug: string;
  /** The files of the target branch's first commit. */
  files: Record<string, string>;
  /** Opens the scenario's pull requests on the remote (`dir` is the scenario's directory). */
  openPrs: (remote: GitRemote, dir: string) => Promise<void>;
  ciMaxParallel?: number;
}

async function startScenario(opts: ScenarioOptions): Promise<Scenario> {
  const dir = makeTempDirSync(`greenline-e2e-${opts.name}-`);
  try {
    const remote = await GitRemote.create(dir, opts.files);
    await opts.openPrs(remote, dir);
    const ci = writeCiScript(dir);
    const server = await GreenlineProcess.start({
      dir,
      repos: [{ repo: opts.slug, remote: remote.dir, ciCommand: ci.command }],
      ...(opts.ciMaxParallel !== undefined ? { ciMaxParallel: opts.ciMaxParallel } : {}),
    });
    return { dir, remote, ci, server, queue: new QueueClient(server, opts.slug) };
  } catch (err) {
    await removeTempDir(dir);
    throw err;
  }
}

/**
 * The scenario of the enclosing describe: started in its beforeAll, stopped in its afterAll (after
 * `beforeStop`, when it started). The object returned holds the scenario's parts once it started.
 */
export function useScenario(opts: ScenarioOptions, beforeStop?: () => void): Scenario {
  const world = {} as Scenario;
  let started: Scenario | undefined;
  beforeAll(async () => {
    started = await startScenario(opts);
    Object.assign(world, started);
  }, 60_000);
  afterAll(async () => {
    if (started) beforeStop?.();
    await stopScenario(started);
  });
  return world;
}

/** PR `n`'s files: its feature file (`broken` fails check.sh) and, when it `conflicts`, its own line 2 of SHARED_TXT. */
export function featureFiles(n: number, opts: { broken: boolean; conflicts?: boolean }): Record<string, string> {
  return {
    [`features/pr-${n}.txt`]: opts.broken ? 'broken\n' : 'works\n',
    ...(opts.conflicts ? { 'shared.txt': SHARED_TXT.replace('line 2', `line 2 as #${n} wants it`) } : {}),
  };
}

/** shared.txt at the base, whose line 2 conflicting PRs change. */
export const SHARED_TXT = 'line 1\nline 2\nline 3\n';

/** Waits until only `main` is left on the remote: the test branches are deleted once their runs are over. */
export async function testBranchesDeleted(remote: GitRemote): Promise<void> {
  await waitUntil(
    'the test branches to be deleted',
    30_000,
    async () => ((await remote.branches()).join() === 'main' ? true : undefined),
    () => remote.branches(),
  );
}

/** Stops the server and removes the directory of a scenario (started or not). */
async function stopScenario(s: Scenario | undefined): Promise<void> {
  if (!s) return;
  await s.server.stop();
  await removeTempDir(s.dir);
}
