/** Pull requests submitted to a queue, cancelled, their tests restarted (contract §2.1–§2.3). */
import {
  commitMessageFor,
  parsePriority,
  type PrInfo,
  type QueueConfig,
  titlePatternRefusal,
} from '../../engine/index.js';
import { ServiceError } from '../../lib/errors.js';
import type { ForgePort, RepoBinding } from '../../forge/port.js';
import { findImpactedTargets } from '../../store/impacted-targets.js';
import { targetsOfPaths } from '../path-targets.js';
import { refreshTarget } from '../observing/target-refresh.js';
import { queueOfOrg } from '../request-scope.js';
import { requireScope } from '../scopes.js';
import type { PullRequestService } from '../service-port.js';
import { noteOf, placeOf } from './audit-notes.js';
import { assertPrNumber } from './request-checks.js';
import { forgeOfRepo, type ServiceDeps } from './service-deps.js';

/** The paths a PR head changed against its merge base with the target; null when the forge cannot tell. */
async function changedPaths(
  forge: ForgePort,
  binding: RepoBinding,
  targetSha: string | null,
  headSha: string,
): Promise<string[] | null> {
  if (!forge.changedFiles || targetSha === null) return null;
  return forge.changedFiles(binding, { from: targetSha, to: headSha });
}

export function pullRequestCommands(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'adapters' | 'clock' | 'newId'>,
): Pick<PullRequestService, 'submitPullRequest' | 'cancelPullRequest' | 'restartTestsOnPullRequest'> {
  return {
    async submitPullRequest(ctx, key, req) {
      const { db, adapters, executor, clock, newId } = deps;
      assertPrNumber(req.prNumber);
      if (req.priority !== undefined)
        requireScope(ctx, ['pull_requests:priority'], 'Setting the priority of a pull request');
      if (req.noBatch === true)
        requireScope(ctx, ['pull_requests:skip_batching'], 'Submitting a pull request to be tested alone (noBatch)');
      const priority = parsePriority(req.priority);
      if (!priority.ok) throw new ServiceError('VALIDATION_FAILED', priority.message);
      const { repo, queue } = await queueOfOrg(db, ctx, key);
      const { binding, forge } = forgeOfRepo(adapters, repo);
      let pr = await forge.getPullRequest(binding, req.prNumber, queue.target_branch);
      if (!pr)
        throw new ServiceError(
          'PR_NOT_FOUND',
          `Pull request #${req.prNumber} does not exist in ${repo.owner}/${repo.name}`,
        );
      const { entries, config } = await executor.read(queue.id, queue.version);
      const refused = titleRefusal(config, pr, req.commitMessage);
      if (refused) throw new ServiceError('COMMIT_TITLE_REFUSED', refused);
      // The poller watches only queues that hold PRs: an idle queue's head may be stale.
      if (queue.target_sha === null || entries.length === 0) await refreshTarget(deps, queue, repo);
      // Direct merge (contract §6.9): the engine merges the PR at once when these facts allow it.
      if (config.directMergeMode === 'always' && forge.directMergeFacts)
        pr = { ...pr, ...(await forge.directMergeFacts(binding, pr)) };
      // A PR submitted before keeps its entry id: the engine takes it from the PR's entry (the executor
      // adds its previous trip), so the new id is used only for a PR's first submission.
      const at = clock.now();
      const submitted = {
        pr: pr.number,
        ...(req.priority !== undefined ? { priority: req.priority } : {}),
        ...(req.noBatch !== undefined ? { noBatch: req.noBatch } : {}),
        ...(req.forceEnqueued !== undefined ? { forceEnqueued: req.forceEnqueued } : {}),
        ...(req.commitMessage !== undefined ? { commitMessage: req.commitMessage } : {}),
      };
      let snapshot = await executor.applyOrThrow(
        queue.id,
        {
          kind: 'submit',
          at,
          entryId: newId(),
          pr,
          reason: req.reason ?? 'API_REQUESTED',
          ...(req.priority !== undefined ? { priority: priority.usedDefault ? null : priority.value } : {}),
          ...(req.noBatch !== undefined ? { noBatch: req.noBatch } : {}),
          ...(req.forceEnqueued !== undefined ? { forceEnqueued: req.forceEnqueued } : {}),
          ...(req.commitMessage !== undefined ? { commitMessage: req.commitMessage } : {}),
        },
        {
          audit: () => noteOf(ctx, at, 'pull_request.submit', { ...placeOf(repo, queue.target_branch), ...submitted }),
        },
      );
      // Targets are often uploaded before the submission (contract §2.6): apply those for this head;
      // without, those of its paths (impactedTargetsFromPaths), as the setting is now.
      const uploaded = await findImpactedTargets(db, repo.id, pr.number, pr.headSha);
      const fromPaths = snapshot.config.impactedTargetsFromPaths;
      const targets = uploaded
        ? { targets: uploaded }
        : fromPaths
          ? targetsOfPaths(fromPaths, await changedPaths(forge, binding, snapshot.targetSha, pr.headSha))
          : null;
      if (targets) {
        const applied = await executor.apply(queue.id, {
          kind: 'impactedTargets',
          at: clock.now(),
          prNumber: pr.number,
          headSha: pr.headSha,
          ...targets,
        });
        if (applied.ok) snapshot = applied.snapshot;
      }
      const entry = snapshot.entries.find((e) => e.prNumber === pr.number);
      return entry && { queueId: queue.id, targetBranch: queue.target_branch, config: snapshot.config, entry };
    },

    async cancelPullRequest(ctx, key, prNumber, reason = 'API_REQUESTED') {
      assertPrNumber(prNumber);
      const { repo, queue } = await queueOfOrg(deps.db, ctx, key);
      const who = ctx.tokenName !== undefined ? { detail: `by API token "${ctx.tokenName}"` } : {};
      const at = deps.clock.now();
      await deps.executor.applyOrThrow(
        queue.id,
        { kind: 'cancel', at, prNumber, reason, ...who },
        {
          audit: () =>
            noteOf(ctx, at, 'pull_request.cancel', { ...placeOf(repo, queue.target_branch), pr: prNumber, reason }),
        },
      );
    },

    async restartTestsOnPullRequest(ctx, key, prNumber) {
      assertPrNumber(prNumber);
      const { repo, queue } = await queueOfOrg(deps.db, ctx, key);
      const at = deps.clock.now();
      await deps.executor.applyOrThrow(
        queue.id,
        { kind: 'restart', at, prNumber, reason: 'TESTS_RESTARTED_BY_API_REQUEST' },
        {
          audit: () => noteOf(ctx, at, 'pull_request.restart', { ...placeOf(repo, queue.target_branch), pr: prNumber }),
        },
      );
    },
  };
}

/**
 * Why the queue's titlePattern refuses the title a PR would land with (the message given with its
 * submission, the queue's title template for its merge method, or else the PR's title), so that a forge rule on commit messages never
 * refuses a tested batch; null when it passes.
 */
function titleRefusal(config: QueueConfig, pr: PrInfo, message: string | undefined): string | null {
  const settings = config.commitMessages;
  if (!settings?.titlePattern || config.mergeMethod === 'rebase') return null;
  const kind = config.mergeMethod === 'squash' ? 'squash' : 'merge';
  const about = { ...pr, body: '', coAuthors: [], ...(message !== undefined ? { message } : {}) };
  const { title } = commitMessageFor(kind, settings, about, [about], { title: pr.title, body: '' });
  const refused = titlePatternRefusal(settings, title);
  return refused && `PR #${pr.number}: ${refused}`;
}
