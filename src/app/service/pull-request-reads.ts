/** A queue's pull requests read: one by number or head branch, and a page of them (contract §2.4, §2.5). */
import { PrState, TERMINAL_STATES, isTerminal, readiness, type Entry, type QueueState } from '../../engine/index.js';
import { ServiceError } from '../../lib/errors.js';
import { findEntryByBranch, findEntryById, findPrOfQueue, listEntriesPage } from '../../store/entries.js';
import { failedCheckUrl } from '../executor/ci-outcome.js';
import { prReason } from '../../engine/pr-reason.js';
import { stackOf } from '../../engine/stacks.js';
import { configOfRow } from '../read-models/queue-config.js';
import { queueOfOrg } from '../request-scope.js';
import { repoSlug } from '../repo-binding.js';
import type { PullRequestService } from '../service-port.js';
import { requireRepo } from '../scopes.js';
import { assertPrNumber } from './request-checks.js';
import { outlookNow, type ServiceDeps } from './service-deps.js';

export function pullRequestReads(
  deps: Pick<ServiceDeps, 'db' | 'executor' | 'clock'>,
): Pick<PullRequestService, 'getSubmittedPullRequest' | 'listPullRequests'> {
  return {
    async getSubmittedPullRequest(ctx, key, pr) {
      // One query: the committed entry is what the queue's snapshot holds (or, terminal, no longer holds).
      const wanted = 'number' in pr && Number.isSafeInteger(pr.number) ? pr.number : -1;
      const found = await findPrOfQueue(deps.db, key.repo, key.targetBranch, wanted);
      if (!found || found.orgId !== ctx.orgId) throw new ServiceError('REPO_NOT_FOUND', repoSlug(key.repo));
      requireRepo(ctx, repoSlug(key.repo));
      if (!found.queue) throw new ServiceError('QUEUE_NOT_FOUND', key.targetBranch);
      let entry: Entry | undefined;
      if ('number' in pr) {
        assertPrNumber(pr.number, 0);
        entry = found.entry;
        if (!entry) throw new ServiceError('PR_NOT_SUBMITTED', `#${pr.number}`);
      } else {
        // The forge reports head branches with the PR (github; git with a --pr-ref-pattern under refs/heads/).
        entry = await findEntryByBranch(deps.db, found.queue.id, pr.branch, TERMINAL_STATES);
        if (!entry) throw new ServiceError('PR_NOT_SUBMITTED', `from branch ${JSON.stringify(pr.branch)}`);
      }
      const queue = {
        targetBranch: key.targetBranch,
        config: configOfRow(found.queue),
        state: found.queue.state as QueueState,
        targetSha: found.queue.target_sha,
      };
      const runId = entry.timeline.at(-1)?.runId;
      const url =
        entry.lastReason === 'TEST_RUN_REQUIRED_STATUS_FAILED' && runId ? await failedCheckUrl(deps.db, runId) : null;
      const active = !isTerminal(entry.state);
      const snapshot = active ? await deps.executor.read(found.queue.id) : null;
      return {
        entry,
        readiness: readiness(queue, entry),
        isCurrentlySubmittedToQueue: active,
        reason: prReason(queue, entry, url, deps.clock.now()),
        outlook: active ? ((await outlookNow(deps, found.queue.id)).get(entry.prNumber) ?? null) : null,
        stack: snapshot ? stackOf(snapshot.entries, entry.prNumber) : [],
        site: found.site,
      };
    },

    async listPullRequests(ctx, key, query) {
      const { db } = deps;
      const { queue } = await queueOfOrg(db, ctx, key);
      if (!Number.isInteger(query.take) || query.take < 1 || query.take > 100) {
        throw new ServiceError('VALIDATION_FAILED', 'take must be an integer from 1 to 100');
      }
      if (query.state !== undefined && !Object.values(PrState).includes(query.state)) {
        throw new ServiceError('VALIDATION_FAILED', `state must be one of ${Object.values(PrState).join(', ')}`);
      }
      // The cursor is the id of the last entry of the previous page: opaque to clients, a UUID on the wire.
      let after: { submittedAt: number; prNumber: number } | undefined;
      if (query.cursor !== undefined) {
        const last = await findEntryById(db, queue.id, query.cursor);
        if (!last)
          throw new ServiceError(
            'VALIDATION_FAILED',
            'cursor is not a nextCursor returned by listPullRequests for this queue',
          );
        after = { submittedAt: last.submittedAt, prNumber: last.prNumber };
      }
      const rows = await listEntriesPage(db, {
        queueId: queue.id,
        limit: query.take + 1,
        after,
        ...(query.state !== undefined ? { state: query.state } : {}),
        ...(query.since !== undefined || query.until !== undefined
          ? { concluded: { since: query.since, until: query.until, terminal: TERMINAL_STATES } }
          : {}),
      });
      const items = rows.slice(0, query.take);
      const outlook = items.some((e) => !isTerminal(e.state)) ? await outlookNow(deps, queue.id) : new Map();
      return rows.length > query.take
        ? { items, nextCursor: items[items.length - 1]!.id, outlook }
        : { items, outlook };
    },
  };
}
