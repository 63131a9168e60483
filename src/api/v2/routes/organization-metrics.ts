import { Type } from '@sinclair/typebox';
import { repoOf } from '../lookups.js';
import { callerOf } from '../caller.js';
import type { V2Route } from '../route.js';
import { Query } from '../schemas.js';

export const PROMETHEUS = 'text/plain; version=0.0.4; charset=utf-8';

/** GET /v2/merge-queues/metrics: Prometheus text for the organization's queues (or one repository's). */
export const organizationMetrics: V2Route = (app, { service }) => {
  app.get(
    '/merge-queues/metrics',
    {
      config: { metrics: true, scopes: ['read'] },
      schema: {
        summary: "Prometheus metrics of the organization's merge queues",
        tags: ['Metrics'],
        querystring: Query({ repositoryId: Type.Optional(Type.String({ format: 'uuid' })) }),
        produces: ['text/plain'],
      },
    },
    async (request, reply) => {
      const { repositoryId } = request.query;
      const repo = repositoryId === undefined ? undefined : await repoOf(service, request, repositoryId);
      const text = await service.metrics(
        callerOf(request),
        repo ? { repo: { host: repo.host, owner: repo.owner, name: repo.name } } : {},
      );
      return reply.type(PROMETHEUS).send(text);
    },
  );
};
