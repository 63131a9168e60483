/** Schemas of greenline's extensions beyond Trunk's v1 endpoints. */
import { Type } from '@sinclair/typebox';
import { AnyCaseEnum, CommitSha, QueueAddress, Repo } from './common.js';

export const ReportStatusRequest = Type.Object({
  repo: Repo,
  testRunId: Type.Optional(Type.String({ minLength: 1, description: 'The test run (give this or sha)' })),
  sha: Type.Optional(CommitSha('The test commit (give this or testRunId)')),
  context: Type.String({ minLength: 1, description: 'Name of the check, as listed in requiredStatuses' }),
  state: AnyCaseEnum(['pending', 'success', 'failure', 'error']),
  url: Type.Optional(Type.String({ format: 'uri', description: 'Link to the CI job' })),
  description: Type.Optional(Type.String()),
});

export const TestRunLogRequest = Type.Object({
  ...QueueAddress,
  testRunId: Type.String({ minLength: 1 }),
});

export const Health = Type.Object({ status: Type.Literal('ok') });
