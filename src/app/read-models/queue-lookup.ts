/** Resolving a request's repository and queue within the caller's organization (404 otherwise). */
import type { Kysely } from 'kysely';
import type { RepoRef } from '../../engine/types.js';
import { HttpError } from '../../errors.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { findRepoAndQueue } from '../../store/queues.js';
import { findRepo } from '../../store/repos.js';
import { repoSlug } from '../repo-binding.js';
import type { AuthContext, QueueKey } from '../request-scope.js';

/** The repository, when it is connected to the caller's org; another org's repository looks unknown. */
export async function repoOfOrg(db: Kysely<Database>, ctx: AuthContext, ref: RepoRef): Promise<RepoRow> {
  const repo = await findRepo(db, ref.host, ref.owner, ref.name);
  if (!repo || repo.org_id !== ctx.orgId) throw new HttpError('REPO_NOT_FOUND', repoSlug(ref));
  return repo;
}

export async function queueOfOrg(
  db: Kysely<Database>,
  ctx: AuthContext,
  key: QueueKey,
): Promise<{ repo: RepoRow; queue: QueueRow }> {
  const found = await findRepoAndQueue(db, key.repo, key.targetBranch);
  if (!found || found.repo.org_id !== ctx.orgId) throw new HttpError('REPO_NOT_FOUND', repoSlug(key.repo));
  if (!found.queue) throw new HttpError('QUEUE_NOT_FOUND', key.targetBranch);
  return { repo: found.repo, queue: found.queue };
}
