import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { invalid, V2Error } from '../errors.js';
import { repoOf } from '../lookups.js';
import type { V2Route } from '../route.js';
import { Body, NoContent, PrNumber } from '../schemas.js';

/**
 * PUT /v2/impacted-targets: a PR head sha's impacted targets (202). The PR is named by number, or by
 * head branch when a queue of `targetBranch` holds a PR from it.
 */
export const uploadImpactedTargets: V2Route = (app, { service }) => {
  app.put(
    '/impacted-targets',
    {
      config: { scopes: ['pull_requests:write', 'impacted_targets:write'] },
      schema: {
        summary: "Upload the impacted targets of a pull request's head commit",
        tags: ['Impacted targets'],
        body: Body({
          repositoryId: Type.String({ format: 'uuid' }),
          targetBranch: Type.String({ minLength: 1 }),
          sha: Type.String({ pattern: '^[A-Za-z0-9]+$' }),
          number: Type.Optional(PrNumber),
          branch: Type.Optional(Type.String({ minLength: 1 })),
          impactedTargets: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100_000 })),
          impactsAllTargets: Type.Optional(Type.Literal(true)),
        }),
        response: { 202: NoContent('Accepted') },
      },
    },
    async (request, reply) => {
      const { repositoryId, targetBranch, sha, number, branch, impactedTargets, impactsAllTargets } = request.body;
      if ((number === undefined) === (branch === undefined)) throw invalid('send exactly one of number or branch');
      if ((impactedTargets === undefined) === (impactsAllTargets === undefined))
        throw invalid('send exactly one of impactedTargets or impactsAllTargets: true');
      const repo = await repoOf(service, request, repositoryId);
      const key = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch };
      let prNumber = number;
      if (prNumber === undefined) {
        const view = await service
          .getSubmittedPullRequest(callerOf(request), key, { branch: branch! })
          .catch(() => undefined);
        if (!view)
          throw new V2Error(
            404,
            'PR_NOT_FOUND',
            `No pull request from branch ${JSON.stringify(branch)} is known; send its number`,
          );
        prNumber = view.entry.prNumber;
      }
      await service.setImpactedTargets(callerOf(request), key, {
        prNumber,
        sha,
        targets: impactsAllTargets ? 'ALL' : impactedTargets!,
      });
      return reply.code(202).send();
    },
  );
};
