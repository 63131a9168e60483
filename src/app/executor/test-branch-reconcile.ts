/**
 * Test branches left on the forge. A run's branch is deleted by its `deleteTestBranch` effect once the
 * engine no longer needs it; an instance that dies between pushing a branch and recording that, or
 * whose deletion never ran, leaves the branch behind. So an instance that takes queues over (at
 * start-up too) compares the repository's test branches with the runs and deletes the branches no
 * queue of the repository still needs (engine: `runsInUse`) — those of finished and cancelled runs,
 * and of runs the store does not know (any more).
 *
 * The branches are listed before the queues are read: a branch on the list was pushed after its run
 * was committed, so a run that is still building or testing (here or on another instance) is in the
 * state read next and keeps its branch; a run that is not needed then is never needed again.
 * Only names of the test-branch format (`<prefix>/pr-<N>[-<M>…]/<id>`) are considered, and only on
 * forges that can list branches (`ForgePort.listBranches`: the git forge and the github forge).
 * Best effort: a forge that cannot be reached is logged, and the next takeover tries again.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { runsInUse, testBranchPattern } from '../../engine/index.js';
import type { Database, RepoRow } from '../../store/database.js';
import { findQueueById, listQueuesOfRepos } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import type { Adapters } from '../adapters.js';
import { bindingOf, repoSlug, repoRefOf } from '../repo-binding.js';
import { loadSnapshot } from './snapshot-io.js';

export interface TestBranchReconcileDeps {
  db: Kysely<Database>;
  adapters: Adapters;
  logger?: Logger;
}

/** Deletes the leftover test branches of the repositories of `queueIds`; returns the branches deleted. */
export async function removeLeftoverTestBranches(
  deps: TestBranchReconcileDeps,
  queueIds: readonly string[],
): Promise<string[]> {
  const repos = new Map<string, RepoRow>();
  for (const queueId of queueIds) {
    const queue = await findQueueById(deps.db, queueId);
    const repo = queue && !repos.has(queue.repo_id) ? await findRepoById(deps.db, queue.repo_id) : undefined;
    if (repo) repos.set(repo.id, repo);
  }
  const deleted: string[] = [];
  for (const repo of repos.values()) {
    try {
      deleted.push(...(await reconcileRepo(deps, repo)));
    } catch (err) {
      deps.logger?.warn(
        { err, repo: repoSlug(repoRefOf(repo)) },
        'leftover test branches not reconciled; the next takeover tries again',
      );
    }
  }
  return deleted;
}

async function reconcileRepo(deps: TestBranchReconcileDeps, repo: RepoRow): Promise<string[]> {
  const { db, adapters, logger } = deps;
  const binding = bindingOf(repo);
  const forge = adapters.forges[binding.forge];
  if (!forge?.listBranches) return [];
  const format = testBranchPattern(binding.testBranchPrefix);
  const branches = (await forge.listBranches(binding, `${binding.testBranchPrefix}/`)).filter((b) => format.test(b));
  if (branches.length === 0) return [];
  const inUse = new Set<string>();
  for (const queue of await listQueuesOfRepos(db, [repo.id])) {
    const snapshot = await db.transaction().execute((trx) => loadSnapshot(trx, queue, repo));
    for (const id of runsInUse(snapshot)) inUse.add(id);
  }
  const leftovers = branches.filter((b) => !inUse.has(b.slice(b.lastIndexOf('/') + 1)));
  for (const branch of leftovers) await forge.deleteBranch(binding, branch);
  if (leftovers.length > 0)
    logger?.info({ repo: repoSlug(repoRefOf(repo)), branches: leftovers }, 'leftover test branches deleted');
  return leftovers;
}
