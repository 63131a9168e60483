/** Schemas of greenline's extensions beyond Trunk's v1 endpoints. */
import { Type } from '@sinclair/typebox';
import { CI_STATES } from '../../ports.js';
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

export const TestRunLogRequest = RequestObject({
  ...QueueAddress,
  testRunId: Name(),
});

export const Health = Type.Object({ status: Type.Literal('ok') });
