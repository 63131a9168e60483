/**
 * Push notifications (extension): a forge tells that refs of a repository moved (a git
 * `post-receive` hook running `greenline hook post-receive`, or a forge's push webhook), and the
 * queues those refs concern are read at once instead of at the next poll.
 */
import { realpathSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { ServiceError } from '../../lib/errors.js';
import { isLocalPath } from '../../git/remote-path.js';
import type { Database, RepoRow } from '../../store/database.js';
import { listRepos } from '../../store/repos.js';
import { repoOfOrg } from '../request-scope.js';
import { repoSlug } from '../repo-binding.js';
import type { AuthContext, RefsService } from '../service-port.js';
import { requireRepo } from '../scopes.js';

export interface RefsMovedDeps {
  db: Kysely<Database>;
  /** Reads the repository's queues that `refs` concern now (the forge poller); how many it read. */
  readQueues: (repo: RepoRow, refs: readonly string[]) => Promise<number>;
}

export function refsNotices(deps: RefsMovedDeps): RefsService {
  return {
    async notifyRefsMoved(ctx, req) {
      if ((req.repo === undefined) === (req.url === undefined))
        throw new ServiceError(
          'VALIDATION_FAILED',
          'name the repository by repo {host, owner, name} or by url (its remote as connected), one of the two',
        );
      const repo = req.repo ? await repoOfOrg(deps.db, ctx, req.repo) : await repoOfRemote(deps.db, ctx, req.url!);
      return {
        queuesRead: await deps.readQueues(
          repo,
          req.refs.map((r) => r.ref),
        ),
      };
    },
  };
}

/** The caller's org's repository whose remote is `url` (a path compared after resolving links). */
async function repoOfRemote(db: Kysely<Database>, ctx: AuthContext, url: string): Promise<RepoRow> {
  const wanted = comparable(url);
  const found = (await listRepos(db, ctx.orgId)).filter((r) => r.remote !== null && comparable(r.remote) === wanted);
  if (found.length === 0)
    throw new ServiceError(
      'REPO_NOT_FOUND',
      `with remote ${url} (no repository of this organization was connected with that --remote; name it by repo instead, or see greenline repo list)`,
    );
  if (found.length > 1)
    throw new ServiceError(
      'VALIDATION_FAILED',
      `several repositories have the remote ${url} (${found.map(repoSlug).join(', ')}): name one by repo {host, owner, name}`,
    );
  requireRepo(ctx, repoSlug(found[0]!));
  return found[0]!;
}

/** A remote as compared: a local path with its links resolved, without a trailing slash. */
function comparable(remote: string): string {
  const trimmed = remote.replace(/^file:\/\//, '').replace(/\/+$/, '');
  if (!isLocalPath(trimmed)) return trimmed;
  try {
    return realpathSync(trimmed);
  } catch {
    return trimmed;
  }
}
