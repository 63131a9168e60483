/** Schemas of greenline's extensions beyond Trunk's v1 endpoints. */
import { Type } from '@sinclair/typebox';
import { CI_STATES } from '../../../forge/port.js';
import { AnyCaseEnum, CommitSha, Name, QueueAddress, Repo, RequestObject, Text } from './common.js';

export const ReportStatusRequest = RequestObject({
  repo: Repo,
  testRunId: Type.Optional(Name({ description: 'The test run (give this or sha)' })),
  sha: Type.Optional(CommitSha('The test commit (give this or testRunId)')),
  context: Name({ description: 'Name of the check, as listed in requiredStatuses' }),
  state: AnyCaseEnum(CI_STATES),
  url: Type.Optional(Type.String({ format: 'uri', description: 'Link to the CI job' })),
  description: Type.Optional(Text()),
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
