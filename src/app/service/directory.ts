/**
 * The v2 API's directory as the caller may see it (service-port.ts CallerDirectory): the read model's
 * lookups by id (read-models/api-directory.ts), judged here against the caller's organization and
 * the repositories its token may act on.
 */
import { repositoryView } from '../read-models/api-directory.js';
import { repoSlug } from '../repo-binding.js';
import { queueOfOrg, reposOfCaller, type AuthContext } from '../request-scope.js';
import { requireRepo } from '../scopes.js';
import type { CallerDirectory } from '../service-port.js';
import type { ServiceDeps } from './service-deps.js';
import type { RepoRow } from '../../store/database.js';

/** Whether the repository is the caller's org's (else it is answered as unknown); 403 when its token may not act on it. */
function visible(ctx: AuthContext, repo: Pick<RepoRow, 'org_id' | 'host' | 'owner' | 'name'>): boolean {
  if (repo.org_id !== ctx.orgId) return false;
  requireRepo(ctx, repoSlug(repo));
  return true;
}

export function callerDirectory(deps: Pick<ServiceDeps, 'db' | 'directory'>): CallerDirectory {
  const { db, directory } = deps;
  return {
    queues: async (ctx, filter) => directory.queues(await reposOfCaller(db, ctx), filter),

    async queue(ctx, shortId) {
      const handle = await directory.queue(shortId);
      return handle && visible(ctx, handle.target.repo) ? handle : undefined;
    },

    async repo(ctx, id) {
      const repo = await directory.repo(id);
      return repo && visible(ctx, repo) ? repositoryView(repo) : undefined;
    },

    repos: async (ctx) => (await reposOfCaller(db, ctx)).map(repositoryView),

    async pullRequest(ctx, id) {
      const found = await directory.pullRequest(id);
      return found && found.orgId === ctx.orgId && visible(ctx, found.repo) ? found.handle : undefined;
    },

    async run(ctx, runId) {
      const found = await directory.run(runId);
      return found && visible(ctx, found.handle.target.repo) ? found : undefined;
    },

    testingResults: async (ctx, key, since, until) =>
      directory.testingResults((await queueOfOrg(db, ctx, key)).queue.id, since, until),

    queueOf: (repo, targetBranch) => directory.queueOf(repo, targetBranch),
    pullRequestIds: (repo, numbers) => directory.pullRequestIds(repo, numbers),
    pullRequestOf: (repo, number) => directory.pullRequestOf(repo, number),
    forgePullRequest: (repo, number) => directory.forgePullRequest(repo, number),
    entryIn: (queueId, number) => directory.entryIn(queueId, number),
    runs: (query) => directory.runs(query),
    now: () => directory.now(),
  };
}
