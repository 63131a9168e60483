/** getMergeQueueMetrics query (contract §2.12). */
import { Type } from '@sinclair/typebox';
import { Name, RequestObject } from './common.js';

/** A misspelt parameter is refused: `?rep=acme/web` must not answer every repository's metrics. */
export const MetricsQuery = RequestObject({
  repo: Type.Optional(
    Type.String({
      pattern: '^[^/\\s\\u0000-\\u001f\\u007f]+/[^/\\s\\u0000-\\u001f\\u007f]+$',
      'x-expected': 'owner/name, e.g. acme/widgets',
      description: 'Only this repository (owner/name); all repositories of the organization when omitted',
    }),
  ),
  repoHost: Type.Optional(Name({ description: 'Host of repo, e.g. github.com; required with repo' })),
});
