/**
 * A PR's impacted targets uploaded (contract §2.6): by a caller of the org, or by a fork PR's CI that
 * the repository's forge vouches for (§9). Stored per (PR, head sha) and applied to the queues that
 * hold the PR at that head.
 */
import { TERMINAL_STATES, type ImpactedTargets } from '../../engine/index.js';
import { ServiceError } from '../../lib/errors.js';
import { listActiveEntriesAtSha } from '../../store/entries.js';
import { upsertImpactedTargets } from '../../store/impacted-targets.js';
import type { RepoRow } from '../../store/database.js';
import { findRepo } from '../../store/repos.js';
import { repoOfOrg } from '../request-scope.js';
import { repoSlug } from '../repo-binding.js';
import type { PullRequestService } from '../service-port.js';
import { recordAudit } from '../../audit/audit-log.js';
import { noteOf, placeOf, type Changer } from './audit-notes.js';
import { assertPrNumber } from './request-checks.js';
import { forgeOfRepo, type ServiceDeps } from './service-deps.js';

interface TargetsUpload {
  prNumber: number;
  sha: string;
  targets: ImpactedTargets;
}

export function impactedTargets(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'adapters' | 'clock'>,
): Pick<PullRequestService, 'setImpactedTargets' | 'setImpactedTargetsFromFork'> {
  const storeTargets = async (ctx: Changer, repo: RepoRow, req: TargetsUpload): Promise<void> => {
    const { db, executor, clock } = deps;
    const at = clock.now();
    await db.transaction().execute(async (trx) => {
      await upsertImpactedTargets(trx, repo.id, req.prNumber, req.sha, req.targets, at);
      await recordAudit(
        trx,
        noteOf(ctx, at, 'pull_request.set_impacted_targets', {
          ...placeOf(repo),
          pr: req.prNumber,
          sha: req.sha,
          impactedTargets: req.targets === 'ALL' ? 'ALL' : req.targets.length,
        }),
      );
    });
    for (const { queueId } of await listActiveEntriesAtSha(db, repo.id, req.prNumber, req.sha, TERMINAL_STATES)) {
      await executor.apply(queueId, {
        kind: 'impactedTargets',
        at,
        prNumber: req.prNumber,
        headSha: req.sha,
        targets: req.targets,
      });
    }
  };

  return {
    async setImpactedTargets(ctx, key, req) {
      checkTargetsUpload(req);
      await storeTargets(ctx, await repoOfOrg(deps.db, ctx, key.repo), req);
    },

    async setImpactedTargetsFromFork(runId, key, req) {
      checkTargetsUpload(req);
      const repo = await findRepo(deps.db, key.repo.host, key.repo.owner, key.repo.name);
      if (!repo) throw new ServiceError('FORK_RUN_NOT_VERIFIED', `no repository ${repoSlug(key.repo)} is connected`);
      const { binding, forge } = forgeOfRepo(deps.adapters, repo);
      if (!forge.verifyForkCiRun) throw new ServiceError('FORK_UPLOAD_UNSUPPORTED');
      const verdict = await forge.verifyForkCiRun(binding, runId, req.sha);
      if (!verdict.ok) throw new ServiceError('FORK_RUN_NOT_VERIFIED', verdict.reason);
      // A fork PR's CI has no token: its workflow run, which the forge vouched for, is the caller.
      await storeTargets(
        { orgId: repo.org_id, orgName: '', tokenId: `fork-run:${runId}`, tokenName: 'fork PR workflow run' },
        repo,
        req,
      );
    },
  };
}

function checkTargetsUpload(req: TargetsUpload): void {
  assertPrNumber(req.prNumber);
  if (!req.sha)
    throw new ServiceError('VALIDATION_FAILED', 'pr.sha must be the head commit sha the targets were computed for');
  if (req.targets !== 'ALL' && !(Array.isArray(req.targets) && req.targets.every((t) => typeof t === 'string'))) {
    throw new ServiceError('VALIDATION_FAILED', 'impactedTargets must be a list of strings or "ALL"');
  }
}
