/**
 * Resolving a request's repository and queue within the caller's organization (404 otherwise), and
 * among the repositories the caller's token is limited to (403 INSUFFICIENT_PERMISSIONS otherwise).
 */
import type { Kysely } from 'kysely';
import type { QueueConfig, RepoRef } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { findRepoAndQueue } from '../../store/queues.js';
import { findRepo, listRepos } from '../../store/repos.js';
import { repoSlug } from '../repo-binding.js';
import type { AuthContext, QueueKey, QueueTarget, ResolvedQueue } from '../request-scope.js';
import { repoAllowed, requireRepo } from '../scopes.js';

/** The repositories of the caller's organization that its token may act on. */
export async function reposOfCaller(db: Kysely<Database>, ctx: AuthContext): Promise<RepoRow[]> {
  return (await listRepos(db, ctx.orgId)).filter((r) => repoAllowed(ctx, repoSlug(r)));
}

/** The repository, when it is connected to the caller's org; another org's repository looks unknown. */
export async function repoOfOrg(db: Kysely<Database>, ctx: AuthContext, ref: RepoRef): Promise<RepoRow> {
  const repo = await findRepo(db, ref.host, ref.owner, ref.name);
  if (!repo || repo.org_id !== ctx.orgId) throw new ServiceError('REPO_NOT_FOUND', repoSlug(ref));
  requireRepo(ctx, repoSlug(repo));
  return repo;
}

/** The queue a call addresses, when it is the caller's org's (a queue read already is checked, not read again). */
export async function queueOfOrg(
  db: Kysely<Database>,
  ctx: AuthContext,
  key: QueueKey,
): Promise<{ repo: RepoRow; queue: QueueRow }>;
export async function queueOfOrg(db: Kysely<Database>, ctx: AuthContext, key: QueueTarget): Promise<ResolvedQueue>;
export async function queueOfOrg(db: Kysely<Database>, ctx: AuthContext, key: QueueTarget): Promise<ResolvedQueue> {
  if ('queue' in key) {
    if (key.repo.org_id !== ctx.orgId) throw new ServiceError('REPO_NOT_FOUND', repoSlug(key.repo));
    requireRepo(ctx, repoSlug(key.repo));
    return key;
  }
  const found = await findRepoAndQueue(db, key.repo, key.targetBranch);
  if (!found || found.repo.org_id !== ctx.orgId) throw new ServiceError('REPO_NOT_FOUND', repoSlug(key.repo));
  requireRepo(ctx, repoSlug(found.repo));
  if (!found.queue) throw new ServiceError('QUEUE_NOT_FOUND', key.targetBranch);
  return { repo: found.repo, queue: found.queue };
}

/** Parsed settings by queue id, with the JSON they were parsed from. */
const settings = new Map<string, { text: string; config: Readonly<QueueConfig> }>();
/** More queues than a server keeps: past this, the parsed settings are dropped and parsed again on use. */
const SETTINGS_KEPT = 10_000;

/** A queue's settings from its row, parsed again only when their JSON changed: they are read far more often than changed. */
export function configOfRow(queue: Pick<QueueRow, 'id' | 'config'>): Readonly<QueueConfig> {
  const known = settings.get(queue.id);
  if (known?.text === queue.config) return known.config;
  if (settings.size >= SETTINGS_KEPT) settings.clear();
  const config = JSON.parse(queue.config) as QueueConfig;
  settings.set(queue.id, { text: queue.config, config });
  return config;
}
