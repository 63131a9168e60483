/** getMergeQueueMetrics query (contract §2.12). */
import { Type } from '@sinclair/typebox';

export const MetricsQuery = Type.Object({
  repo: Type.Optional(Type.String({
    pattern: '^[^/\\s]+/[^/\\s]+$',
    'x-expected': 'owner/name, e.g. acme/widgets',
    description: 'Only this repository (owner/name); all repositories of the organization when omitted',
  })),
  repoHost: Type.Optional(Type.String({ minLength: 1, description: 'Host of repo, e.g. github.com; required with repo' })),
});
