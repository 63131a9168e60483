/**
 * Compiled, never run: the SDK's types as a caller meets them. test/client/sdk-package.process.test.ts runs
 * `tsc --noEmit` on this file; every `@ts-expect-error` must stay an error, so types that grew looser
 * than the server's schemas fail that test.
 */
import {
  GreenlineApiError,
  type GreenlineClient,
  GreenlineNetworkError,
  waitForPullRequest,
  type Queue,
  type QueueSettings,
  type SubmittedPullRequest,
  type TestingDetails,
} from '../../src/client/index.js';

export async function typedUsage(client: GreenlineClient): Promise<void> {
  const repo = { host: 'github.com', owner: 'acme', name: 'web' };
  const main = { repo, targetBranch: 'main' };

  await client.submitPullRequest({ ...main, pr: { number: 1 }, priority: 'urgent', noBatch: true });
  await client.submitPullRequest({ ...main, pr: { number: '1' }, priority: 10 });
  await client.submitPullRequest({ ...main, pr: { number: 1 }, priority: null });
  // @ts-expect-error targetBranch is required
  await client.submitPullRequest({ repo, pr: { number: 1 } });
  // @ts-expect-error noBatch is a boolean
  await client.submitPullRequest({ ...main, pr: { number: 1 }, noBatch: 'yes' });
  // @ts-expect-error pr.number is a number or a decimal string
  await client.cancelPullRequest({ ...main, pr: { number: true } });

  const pr: SubmittedPullRequest = await client.getSubmittedPullRequest({ ...main, pr: { branch: 'feature' } });
  const state: string = pr.state;
  const mergeable: string = pr.readiness.gitHubMergeability;
  const verifiedBy: string | null = pr.verifiedByTestRun;
  // @ts-expect-error prNumber is a number
  const prNumber: string = pr.prNumber;

  const page = await client.listPullRequests({ ...main, state: 'testing', take: 10 });
  const next: string | undefined = page.nextCursor;
  const titles: string[] = page.pullRequests.map((p) => p.prTitle);
  // @ts-expect-error take is a number
  await client.listPullRequests({ ...main, take: '10' });

  await client.setImpactedTargets({ ...main, pr: { number: 1, sha: 'a'.repeat(40) }, impactedTargets: ['//web:app'] });
  await client.setImpactedTargets({ ...main, pr: { number: 1, sha: 'a'.repeat(40) }, impactedTargets: 'ALL' });
  // @ts-expect-error pr.sha is required
  await client.setImpactedTargets({ ...main, pr: { number: 1 }, impactedTargets: [] });

  const run: TestingDetails = await client.getMergeQueueTestingDetails({ ...main, testRunId: 'r' });
  const testSha: string | null = run.testBranchSha;
  const contexts: string[] = run.statusChecks.map((s) => s.context);

  await client.createQueue({ ...main, mode: 'parallel', concurrency: 3 });
  const queue: Queue = await client.getQueue(main);
  const required: string[] | null = queue.requiredStatuses;
  const first: number | undefined = queue.enqueuedPullRequests[0]?.prNumber;
  const settings: QueueSettings = await client.updateQueue({
    ...main,
    state: 'PAUSED',
    batch: true,
    requiredStatuses: ['build'],
  });
  // @ts-expect-error updateQueue answers the settings without the PR list
  const listed = settings.enqueuedPullRequests;
  // @ts-expect-error concurrency is a number
  await client.updateQueue({ ...main, concurrency: 'two' });
  await client.deleteQueue(main);

  const metrics: string = await client.getMergeQueueMetrics({ repo: 'acme/web', repoHost: 'github.com' });
  await client.reportStatus({
    repo,
    sha: 'b'.repeat(40),
    context: 'build',
    state: 'success',
    url: 'https://ci.example.com',
  });
  // @ts-expect-error context is required
  await client.reportStatus({ repo, testRunId: 'r', state: 'success' });
  const log: string = await client.getTestRunLog({ ...main, testRunId: 'r' });
  const health: 'ok' = (await client.healthz()).status;

  const merged = await waitForPullRequest(
    client,
    { ...main, pr: { number: 1 } },
    { intervalMs: 5_000, onChange: (p) => p.state },
  );
  try {
    await client.getQueue(main);
  } catch (err) {
    if (err instanceof GreenlineApiError) {
      const status: number = err.status;
      if (err.code === 'QUEUE_NOT_FOUND') await client.createQueue(main);
      void status;
    } else if (err instanceof GreenlineNetworkError) {
      const reason: string = err.reason;
      void reason;
    }
  }
  void [
    state,
    mergeable,
    verifiedBy,
    prNumber,
    next,
    titles,
    testSha,
    contexts,
    required,
    first,
    listed,
    metrics,
    log,
    health,
    merged,
  ];
}
