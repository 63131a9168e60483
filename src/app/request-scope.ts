/**
 * Who is calling and which queue a call addresses: the first two arguments of most service calls, and
 * what the service resolves them to before it reads or writes: the caller's repository and queue within
 * its organization (404 otherwise), among the repositories its token is limited to (403
 * INSUFFICIENT_PERMISSIONS otherwise). The read models are given what was resolved here.
 */
import type { Kysely } from 'kysely';
import type { AuditSource } from '../audit/audit-log.js';
import type { RepoRef } from '../engine/types.js';
import { ServiceError } from '../lib/errors.js';
import type { Database, QueueRow, RepoRow } from '../store/database.js';
import { findRepoAndQueue } from '../store/queues.js';
import { findRepo, listRepos } from '../store/repos.js';
import { repoSlug } from './repo-binding.js';
import { repoAllowed, requireRepo, type Scope } from './scopes.js';

/** Who is calling: resolved from the x-api-token header. */
export interface AuthContext {
  orgId: string;
  orgName: string;
  tokenId: string;
  /** The token's name, which says who cancelled a PR; absent for calls not made with a token. */
  tokenName?: string;
  /** What the caller may do (app/scopes.ts): a token's scopes with what they imply. */
  scopes: ReadonlySet<Scope>;
  /** The repositories (`host/owner/name`, lower case) the caller may act on; absent: all of its org's. */
  repos?: readonly string[];
  /** When the token stops being valid (ms); absent: never. */
  expiresAt?: number;
  /** Where the request came from (client address, user agent, x-source), for the audit log; set by the API's auth hooks. */
  source?: AuditSource;
  /** The forge user who gave a comment command or set a label, when the call is theirs (the audit log's actor). */
  forgeUser?: string;
}

export interface QueueKey {
  repo: RepoRef;
  targetBranch: string;
}

/**
 * A queue already read within the caller's organization in the same request (the v2 API addresses
 * queues and pull requests by id): what a write to it needs of its row.
 */
export interface ResolvedQueue {
  repo: RepoRow;
  queue: Pick<QueueRow, 'id' | 'target_branch' | 'target_sha' | 'version'>;
}

/** The queue a call addresses: by repository and branch, or as read moments ago in the same request. */
export type QueueTarget = QueueKey | ResolvedQueue;

/** The repositories of the caller's organization that its token may act on. */
export async function reposOfCaller(db: Kysely<Database>, ctx: AuthContext): Promise<RepoRow[]> {
  return (await listRepos(db, ctx.orgId)).filter((r) => repoAllowed(ctx, repoSlug(r)));
}

/**
 * `repo`, when it is connected to the caller's org (another org's repository looks unknown: 404 naming
 * the repository as `asked`), and its token may act on it (403 otherwise).
 */
function ownRepo(ctx: AuthContext, repo: RepoRow | null | undefined, asked: RepoRef): RepoRow {
  if (!repo || repo.org_id !== ctx.orgId) throw new ServiceError('REPO_NOT_FOUND', repoSlug(asked));
  requireRepo(ctx, repoSlug(repo));
  return repo;
}

/** The repository, when it is connected to the caller's org; another org's repository looks unknown. */
export async function repoOfOrg(db: Kysely<Database>, ctx: AuthContext, ref: RepoRef): Promise<RepoRow> {
  return ownRepo(ctx, await findRepo(db, ref.host, ref.owner, ref.name), ref);
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
    ownRepo(ctx, key.repo, key.repo);
    return key;
  }
  const found = await findRepoAndQueue(db, key.repo, key.targetBranch);
  const repo = ownRepo(ctx, found?.repo, key.repo);
  if (!found?.queue) throw new ServiceError('QUEUE_NOT_FOUND', key.targetBranch);
  return { repo, queue: found.queue };
}
