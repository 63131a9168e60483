/** getMergeQueueTestingDetails (contract §2.7). */
import { Type } from '@sinclair/typebox';
import { DateTime, Name, Nullable, QueueAddress, RequestObject } from './common.js';

export const TestRunRequest = RequestObject({
  ...QueueAddress,
  testRunId: Name({ description: 'Id of the test run: the last segment of its test branch name' }),
});

const Targets = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));

export const TestingDetails = Type.Object({
  requiredStatuses: Type.Array(Type.String(), { description: 'Checks that must pass for this run' }),
  requiredStatusesSource: Type.String({ enum: ['trunk_config', 'repo_provider_branch_protection', 'merge_instance'] }),
  testBranch: Type.String(),
  testBranchSha: Nullable(Type.String({ description: 'null while the test commit is being built' })),
  testCommitUrl: Nullable(
    Type.String({
      description:
        "greenline extension: the test commit on the repository's forge (GitHub's form); null while it is being built, and on a git forge (no address known)",
    }),
  ),
  createdAt: DateTime('When the run was created'),
  status: Type.String({ enum: ['in_progress', 'failed', 'cancelled', 'succeeded'] }),
  checkSuites: Type.Array(
    Type.Object({
      checkRuns: Type.Array(
        Type.Object({
          name: Type.String(),
          url: Type.String(),
          status: Type.Optional(Type.String()),
          conclusion: Type.Optional(Type.String()),
        }),
      ),
    }),
    { description: 'Empty: statuses are reported in statusChecks' },
  ),
  statusChecks: Type.Array(
    Type.Object({
      context: Type.String(),
      url: Type.Optional(Type.String()),
      state: Type.String({ enum: ['PENDING', 'SUCCESS', 'FAILURE', 'ERROR', 'CANCELLED', 'SKIPPED'] }),
      description: Type.Optional(Type.String()),
    }),
    { description: 'Statuses reported for the test commit' },
  ),
  testedPullRequests: Type.Array(
    Type.Object({
      prNumber: Type.Integer(),
      prUrl: Type.String(),
      title: Type.String(),
      changedFiles: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "greenline extension: the PR's own changed paths (its head against its merge base with the target branch head); absent when not known",
        }),
      ),
    }),
    { description: 'The PRs under test (several when batched)' },
  ),
  impactedTargets: Targets('Targets of every PR merged into the test branch; only when targets were uploaded'),
  impactedTargetsForTestedPrs: Targets('Targets of the PRs under test only'),
  dependentPrs: Type.Array(Type.Integer(), {
    description: 'PRs merged into the test branch as its predicted base, not under test',
  }),
  baseSha: Nullable(
    Type.String({
      description:
        "greenline extension: what the run's own PRs were merged onto: the target branch head, or the tested state of dependentPrs ahead of them; null while the test commit is being built, or when the forge cannot compare commits",
    }),
  ),
  changedFiles: Nullable(
    Type.Array(Type.String(), {
      description:
        'greenline extension: the paths changed from baseSha to the test commit, sorted (a rename is both paths); null when not known',
    }),
  ),
});
