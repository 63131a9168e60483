/** Schemas of try builds (extension): tryPullRequest and getPullRequestTry. */
import { Type, type Static } from '@sinclair/typebox';
import type { TryBuildView } from '../../../app/service-port.js';
import { Nullable, PrNumber, QueueAddress, RequestObject } from './common.js';

export const TryRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject({ number: PrNumber }),
  onQueue: Type.Optional(
    Type.Boolean({
      description:
        'true: build the PR on top of the PRs queued ahead (the queue as it stands) rather than on the target branch head alone',
    }),
  ),
});

export const PrTryRequest = RequestObject({
  ...QueueAddress,
  pr: RequestObject({ number: PrNumber }),
});

const TRY_STATES = ['queued', 'building', 'testing', 'passed', 'failed', 'cancelled'] as const;

export const TryBuild = Type.Object({
  id: Type.String(),
  prNumber: Type.Integer(),
  headSha: Type.String({ description: 'The PR head tried' }),
  onQueue: Type.Boolean({ description: 'Built on top of the PRs queued ahead' }),
  state: Type.Union(
    TRY_STATES.map((s) => Type.Literal(s)),
    {
      description:
        'queued (waiting for a free try slot, tryConcurrency), building, testing, then passed, failed or cancelled',
    },
  ),
  detail: Type.String({ description: 'Where it stands or how it ended, in words' }),
  baseSha: Nullable(Type.String({ description: 'The target branch head it was built on; null until it is built' })),
  prNumbers: Type.Array(Type.Integer(), { description: 'The PRs merged onto baseSha, in order, the tried PR last' }),
  testSha: Nullable(Type.String({ description: 'The commit tested; null until it is built' })),
  requestedBy: Type.String({ description: 'The API token or forge user who asked for it' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PrTry = Type.Object({
  try: Nullable(Type.Object(TryBuild.properties, { description: "The PR's latest try; null when it never had one" })),
});

export function tryBuildWire(t: TryBuildView): Static<typeof TryBuild> {
  return {
    id: t.id,
    prNumber: t.prNumber,
    headSha: t.headSha,
    onQueue: t.onQueue,
    state: t.state,
    detail: t.detail,
    baseSha: t.baseSha ?? null,
    prNumbers: t.prNumbers,
    testSha: t.testSha ?? null,
    requestedBy: t.requestedBy,
    createdAt: new Date(t.createdAt).toISOString(),
    updatedAt: new Date(t.updatedAt).toISOString(),
  };
}
