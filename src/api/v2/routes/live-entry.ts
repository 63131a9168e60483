/** The pull request of a v2 write on a queue entry, with the entry it writes: 409 unless it is live. */
import type { FastifyRequest } from 'fastify';
import type { MergeQueueService } from '../../../app/service-port.js';
import { repoRefOf } from '../../../app/repo-binding.js';
import { isTerminal } from '../../../engine/types.js';
import { prNotFound, V2Error } from '../errors.js';
import { factsOf, pullRequestOf } from '../lookups.js';

export async function liveEntryOf(service: MergeQueueService, request: FastifyRequest, id: string) {
  const pr = await pullRequestOf(service, request, id);
  const latest = pr.latest;
  if (!latest && !(await factsOf(service, pr))) throw prNotFound(id);
  const entry = latest?.entry;
  if (!latest || !entry || isTerminal(entry.state))
    throw new V2Error(
      409,
      'PR_NOT_IN_ACTIVE_STATE',
      `Pull request #${pr.number} is not in a merge queue${entry ? ` (its entry is ${entry.state.toLowerCase()})` : ''}`,
    );
  return {
    pr,
    entry,
    key: { repo: repoRefOf(pr.repo), targetBranch: latest.targetBranch },
    /** The entry's queue as the lookup read it: a write to it needs no second lookup. */
    queue: latest.target,
  };
}
