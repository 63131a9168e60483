import type { PullRequestService } from '../../../app/service-port.js';
import { authOf, forkRunOf } from '../../auth.js';
import { impactedTargets, prNumber, queueKey } from '../parse-input.js';
import type { Route } from '../../route-deps.js';
import { Empty, replies } from '../schemas/common.js';
import { SetImpactedTargetsRequest } from '../schemas/pull-request.js';

/**
 * POST /v1/setImpactedTargets (contract §2.6): the targets a PR's head sha impacts, for parallel
 * queues. Accepted for any PR of a connected repo, submitted or not (CI uploads on every push); the
 * last upload for a sha wins. Uploads from fork PRs come without a token, authenticated by their
 * workflow run (`x-forked-workflow-run-id`), which the repository's forge verifies.
 */
export const setImpactedTargets: Route<PullRequestService> = (app, { service }) => {
  app.post(
    '/setImpactedTargets',
    {
      config: { forkUploads: true, scopes: ['pull_requests:write', 'impacted_targets:write'] },
      schema: {
        summary: 'Set the impacted targets of a PR',
        tags: ['Pull requests'],
        body: SetImpactedTargetsRequest,
        response: replies(Empty),
      },
    },
    async (request) => {
      const { pr } = request.body;
      const upload = {
        prNumber: prNumber(pr.number),
        sha: pr.sha.toLowerCase(),
        targets: impactedTargets(request.body.impactedTargets),
      };
      const runId = forkRunOf(request);
      if (runId !== undefined) await service.setImpactedTargetsFromFork(runId, queueKey(request.body), upload);
      else await service.setImpactedTargets(authOf(request), queueKey(request.body), upload);
      return {};
    },
  );
};
