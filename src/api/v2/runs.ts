/** Verification runs on the wire: a test run with the ids and titles of the pull requests it carried. */
import type { FastifyRequest } from 'fastify';
import type { QueueHandle } from '../../app/read-models/api-directory.js';
import type { MergeQueueService } from '../../app/service-port.js';
import type { TestRun } from '../../engine/types.js';
import { callerOf } from './caller.js';
import { verificationRunOut } from './wire.js';

export async function runOut(
  service: MergeQueueService,
  request: FastifyRequest,
  handle: QueueHandle,
  run: TestRun,
  single: boolean,
) {
  const details = await service.getTestingDetails(callerOf(request), handle.key, run.id);
  const ids = await service.directory.pullRequestIds(handle.repo, [...run.prNumbers, ...run.dependentPrs]);
  const titles = new Map(details.testedPullRequests.map((p) => [p.prNumber, p.title]));
  return verificationRunOut(run, handle.repo, ids, titles, single ? details : { ...details, impactedTargets: null });
}
