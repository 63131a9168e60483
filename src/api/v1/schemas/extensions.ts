/** Schemas of greenline's extensions beyond Trunk's v1 endpoints. */
import { Type } from '@sinclair/typebox';
import { CI_STATES } from '../../../forge/port.js';
import { AnyCaseEnum, CommitSha, Name, Nullable, QueueAddress, Repo, RequestObject, Text } from './common.js';

export const ReportStatusRequest = RequestObject({
  repo: Repo,
  testRunId: Type.Optional(Name({ description: 'The test run (give this or sha)' })),
  sha: Type.Optional(CommitSha('The test commit (give this or testRunId)')),
  context: Name({ description: 'Name of the check, as listed in requiredStatuses' }),
  state: AnyCaseEnum(CI_STATES),
  url: Type.Optional(Type.String({ format: 'uri', description: 'Link to the CI job' })),
  description: Type.Optional(Text()),
});

export const TestRunChangesRequest = RequestObject({
  repo: Repo,
  testRunId: Type.Optional(Name({ description: 'The test run (give this or sha)' })),
  sha: Type.Optional(CommitSha('The test commit (give this or testRunId)')),
});

const Paths = (description: string) => Nullable(Type.Array(Type.String(), { description }));

export const TestRunChanges = Type.Object({
  testRunId: Type.String(),
  testBranchSha: Nullable(Type.String({ description: 'The test commit; null while it is being built' })),
  baseSha: Nullable(
    Type.String({
      description:
        "What the run's own PRs were merged onto: the target branch head, or for a run tested on top of others (dependentPrs) the tested state ahead of it. Null while the test commit is being built, or when the forge cannot compare commits",
    }),
  ),
  changedFiles: Paths(
    'The paths changed from baseSha to the test commit, sorted (a rename is both paths); null when not known: test everything',
  ),
  pullRequests: Nullable(
    Type.Array(
      Type.Object({
        prNumber: Type.Integer(),
        changedFiles: Type.Array(Type.String(), {
          description: "The PR's own changed paths: its head against its merge base with the target branch head",
        }),
      }),
      { description: 'The PRs under test, in order; null when not known' },
    ),
  ),
});

export const NotifyRefsMovedRequest = RequestObject({
  repo: Type.Optional(Repo),
  url: Type.Optional(Name({ description: "The repository's remote, as connected with --remote (give this or repo)" })),
  refs: Type.Array(
    RequestObject({
      ref: Name({ description: 'The full ref name', examples: ['refs/heads/main', 'refs/pull/12/head'] }),
      oldSha: CommitSha('What the ref pointed at before (all zeros: created)'),
      newSha: CommitSha('What it points at now (all zeros: deleted)'),
    }),
    { minItems: 1, maxItems: 10_000, description: 'The refs that moved' },
  ),
});

export const NotifyRefsMovedResponse = Type.Object({
  queuesRead: Type.Integer({ description: 'How many queues the moved refs concern were read from the forge now' }),
});

export const TestRunLogRequest = RequestObject({
  ...QueueAddress,
  testRunId: Name(),
});

export const Health = Type.Object({ status: Type.Literal('ok') });
