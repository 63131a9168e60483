/**
 * The world of one end-to-end scenario: a temporary directory, a git remote with the scenario's
 * files and pull requests, the recording CI script, a `greenline serve` connected to the remote, and
 * a client for its queue. Started in a scenario's beforeAll, stopped in its afterAll.
 */
import { writeCiScript, type CiScript } from './ci-script.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess } from './greenline-process.js';
import { QueueClient } from './queue-client.js';
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

export async function startScenario(opts: ScenarioOptions): Promise<Scenario> {
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

/** Stops the server and removes the directory of a scenario (started or not). */
export async function stopScenario(s: Scenario | undefined): Promise<void> {
  if (!s) return;
  await s.server.stop();
  await removeTempDir(s.dir);
}
