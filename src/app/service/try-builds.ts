/** Try builds of pull requests (app/try-builds.ts): asked for and read. */
import { ServiceError } from '../../lib/errors.js';
import type { TryBuildRow } from '../../store/database.js';
import { queueOfOrg } from '../request-scope.js';
import type { TryBuildView, TryService } from '../service-port.js';
import type { TryBuilds } from '../try-builds.js';
import { assertPrNumber } from './request-checks.js';
import type { ServiceDeps } from './service-deps.js';

export function tryBuildsService(deps: Pick<ServiceDeps, 'db'> & { tries: TryBuilds | null }): TryService {
  return {
    async tryPullRequest(ctx, key, req) {
      assertPrNumber(req.prNumber);
      const { repo, queue } = await queueOfOrg(deps.db, ctx, key);
      if (!deps.tries) throw new ServiceError('TRY_UNAVAILABLE', 'this greenline server runs no CI for try builds');
      const requestedBy = ctx.forgeUser ?? (ctx.tokenName !== undefined ? `API token "${ctx.tokenName}"` : 'the API');
      return viewOf(
        await deps.tries.request(repo, queue, req.prNumber, { onQueue: req.onQueue === true, requestedBy }),
      );
    },

    async getPullRequestTry(ctx, key, prNumber) {
      assertPrNumber(prNumber);
      const { queue } = await queueOfOrg(deps.db, ctx, key);
      const row = deps.tries ? await deps.tries.latest(queue.id, prNumber) : undefined;
      return row ? viewOf(row) : null;
    },
  };
}

export function viewOf(row: TryBuildRow): TryBuildView {
  return {
    id: row.id,
    prNumber: row.pr_number,
    headSha: row.head_sha,
    onQueue: row.on_queue === 1,
    state: row.state as TryBuildView['state'],
    detail: row.detail ?? '',
    ...(row.base_sha !== null ? { baseSha: row.base_sha } : {}),
    prNumbers: JSON.parse(row.pr_numbers) as number[],
    ...(row.test_sha !== null ? { testSha: row.test_sha } : {}),
    requestedBy: row.requested_by,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
