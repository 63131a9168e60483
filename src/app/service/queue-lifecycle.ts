/** Queues created and deleted (contract §2.8, §2.11). */
import { TERMINAL_STATES, newQueueSnapshot } from '../../engine/index.js';
import { ServiceError } from '../../errors.js';
import { listActivePrNumbers } from '../../store/entries.js';
import { deleteQueueRow, findQueue, findQueueById, insertQueue } from '../../store/queues.js';
import { refreshTarget } from '../forge/target-refresh.js';
import { queueOfOrg, repoOfOrg } from '../read-models/queue-lookup.js';
import { repoRefOf } from '../repo-binding.js';
import type { QueueService } from '../service-port.js';
import { configPatch, isBranchName } from './request-checks.js';
import type { ServiceDeps } from './service-deps.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

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
      const s = newQueueSnapshot(repoRefOf(repo), key.targetBranch, patch, repo.test_branch_prefix);
      const now = clock.now();
      const id = newId();
      try {
        await insertQueue(db, {
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
      } catch (err) {
        // Lost a race with a concurrent create of the same queue (unique repo + branch).
        if (await findQueue(db, repo.id, key.targetBranch)) throw new ServiceError('QUEUE_EXISTS', key.targetBranch);
        throw err;
      }
      await refreshTarget(deps, (await findQueueById(db, id))!, repo).catch((err: unknown) =>
        deps.logger?.warn({ err, branch: key.targetBranch }, 'target branch not readable yet; the poller will retry'),
      );
    },

    async deleteQueue(ctx, key) {
      const { db, executor } = deps;
      const { queue } = await queueOfOrg(db, ctx, key);
      await executor.serial(queue.id, async () => {
        const prs = await listActivePrNumbers(db, queue.id, TERMINAL_STATES);
        if (prs.length > 0) {
          throw new ServiceError(
            'QUEUE_NOT_EMPTY',
            `${plural(prs.length, 'pull request')} (${prs.map((n) => `#${n}`).join(', ')})`,
          );
        }
        await deleteQueueRow(db, queue.id);
        await deps.directory.forgetQueue(queue.id);
        executor.forget(queue.id);
      });
    },
  };
}
