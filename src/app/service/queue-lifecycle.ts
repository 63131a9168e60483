/** Queues created and deleted (contract §2.8, §2.11). */
import { recordAudit } from '../../audit/audit-log.js';
import { TERMINAL_STATES, newQueueSnapshot } from '../../engine/index.js';
import { ServiceError } from '../../lib/errors.js';
import { listActivePrNumbers } from '../../store/entries.js';
import type { RepoRow } from '../../store/database.js';
import { deleteQueueRow, findQueue, findQueueById, insertQueue } from '../../store/queues.js';
import { refreshTarget } from '../observing/target-refresh.js';
import { queueOfOrg, repoOfOrg } from '../request-scope.js';
import { repoRefOf, repoSlug } from '../repo-binding.js';
import type { QueueService } from '../service-port.js';
import { noteOf, placeOf } from './audit-notes.js';
import { configPatch, isBranchName } from './request-checks.js';
import { forgeOfRepo, type ServiceDeps } from './service-deps.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const UNREADABLE = 'the target branch could not be read from the forge; the poller reads it again';

/**
 * Whether the forge has the branch a queue is created for: refused (TARGET_BRANCH_NOT_FOUND) when the
 * forge says it has none; false when the forge could not be asked (the queue is created and its PRs
 * say that its target branch could not be read, engine/target-unread.ts, until it is).
 */
async function targetExists(deps: Pick<ServiceDeps, 'adapters' | 'logger'>, repo: RepoRow, branch: string) {
  const { binding, forge } = forgeOfRepo(deps.adapters, repo);
  try {
    if ((await forge.getBranchSha(binding, branch)) !== null) return true;
  } catch (err) {
    deps.logger?.warn({ err, branch }, UNREADABLE);
    return false;
  }
  throw new ServiceError('TARGET_BRANCH_NOT_FOUND', `${branch} in ${repoSlug(repoRefOf(repo))}`);
}

export function queueLifecycle(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'adapters' | 'clock' | 'newId' | 'logger' | 'directory'>,
): Pick<QueueService, 'createQueue' | 'deleteQueue'> {
  return {
    async createQueue(ctx, key, config, source = 'other') {
      const { db, clock, newId } = deps;
      const repo = await repoOfOrg(db, ctx, key.repo);
      const patch = configPatch({ mode: config.mode, concurrency: config.concurrency });
      if (!isBranchName(key.targetBranch)) {
        throw new ServiceError(
          'VALIDATION_FAILED',
          `targetBranch ${JSON.stringify(key.targetBranch)} is not a valid branch name`,
        );
      }
      if (await findQueue(db, repo.id, key.targetBranch)) throw new ServiceError('QUEUE_EXISTS', key.targetBranch);
      const readable = await targetExists(deps, repo, key.targetBranch);
      const s = newQueueSnapshot(repoRefOf(repo), key.targetBranch, patch, repo.test_branch_prefix);
      const now = clock.now();
      const id = newId();
      try {
        await db.transaction().execute(async (trx) => {
          await insertQueue(trx, {
            id,
            repo_id: repo.id,
            target_branch: key.targetBranch,
            state: s.state,
            config: JSON.stringify(s.config),
            target_sha: null,
            internal: JSON.stringify(s.internal),
            version: 0,
            created_at: now,
            updated_at: now,
            managed_by: source === 'terraform' ? 'terraform' : null,
          });
          await recordAudit(
            trx,
            noteOf(ctx, now, 'queue.create', placeOf(repo, key.targetBranch), {
              mode: { from: null, to: s.config.mode },
              concurrency: { from: null, to: s.config.concurrency },
            }),
          );
        });
      } catch (err) {
        // Lost a race with a concurrent create of the same queue (unique repo + branch).
        if (await findQueue(db, repo.id, key.targetBranch)) throw new ServiceError('QUEUE_EXISTS', key.targetBranch);
        throw err;
      }
      if (!readable) return;
      await refreshTarget(deps, (await findQueueById(db, id))!, repo).catch((err: unknown) =>
        deps.logger?.warn({ err, branch: key.targetBranch }, UNREADABLE),
      );
    },

    async deleteQueue(ctx, key) {
      const { db, executor } = deps;
      const { repo, queue } = await queueOfOrg(db, ctx, key);
      await executor.serial(queue.id, async () => {
        const prs = await listActivePrNumbers(db, queue.id, TERMINAL_STATES);
        if (prs.length > 0) {
          throw new ServiceError(
            'QUEUE_NOT_EMPTY',
            `${plural(prs.length, 'pull request')} (${prs.map((n) => `#${n}`).join(', ')})`,
          );
        }
        await db.transaction().execute(async (trx) => {
          await deleteQueueRow(trx, queue.id);
          await recordAudit(trx, noteOf(ctx, deps.clock.now(), 'queue.delete', placeOf(repo, queue.target_branch)));
        });
        await deps.directory.forgetQueue(queue.id);
        executor.forget(queue.id);
      });
    },
  };
}
