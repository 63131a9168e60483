/**
 * End to end, CI that misbehaves, on real git with the built-in CI (real processes):
 * - a check that fails once, then passes: with `ciRetries: 1` its PR merges, and is marked flaky
 *   (TEST_RUN_PASSED_AFTER_RETRY), the command having run twice on the same test commit;
 * - a check whose command is killed from outside (SIGKILL, not by greenline): cancelled, not failed;
 *   tested again, it passes and merges;
 * - a required status nobody reports: with `requiredStatusStartTimeoutMinutes: 1` the run fails with
 *   REQUIRED_STATUS_NEVER_STARTED naming it, long before the testing timeout (so this file needs a
 *   bit over a minute, whole minutes being all the API takes).
 * The reasons are checked in the API, `greenline pr status` and the metrics.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { runCli } from '../greenline-process.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { useScenario } from '../scenario.js';
import { targetHistoryProblems } from '../target-history.js';

const SLUG = 'example.com/acme/flaky';

/**
 * A test commit holding FLAKY fails the first time any commit is checked with it (it leaves the mark
 * file FLAKY names), then passes; one holding KILLED kills its own process group the first time, as
 * an operator or the OOM killer would.
 */
const CHECK = [
  'if [ -e FLAKY ] && [ ! -e "$(cat FLAKY)" ]; then touch "$(cat FLAKY)"; echo "flaky failure"; exit 1; fi',
  'if [ -e KILLED ] && [ ! -e "$(cat KILLED)" ]; then touch "$(cat KILLED)"; kill -KILL 0; fi',
  CHECK_SH,
].join('\n');

export function misbehavingCiScenario(): void {
  describe.concurrent('CI that misbehaves', () => {
    const world = useScenario({
      name: 'misbehaving',
      slug: SLUG,
      files: { 'check.sh': CHECK },
      openPrs: async (r, dir) => {
        await r.openPr(1, { 'features/pr-1.txt': 'works\n', FLAKY: `${path.join(dir, 'flaky-mark')}\n` }, 'Flaky');
        await r.openPr(2, { 'features/pr-2.txt': 'works\n', KILLED: `${path.join(dir, 'killed-mark')}\n` }, 'Killed');
        await r.openPr(3, { 'features/pr-3.txt': 'works\n' }, 'Unchecked feature');
      },
    });

    it(
      'retries a flaky check and a killed one on the same commit, and fails a run whose required status never starts',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        await queue.create('single', 1, { ciRetries: 1 });
        expect(await queue.call('getQueue')).toMatchObject({ ciRetries: 1 });
        for (const n of [1, 2]) expect((await queue.submit(n)).status).toBe(200);

        const entries = await queue.settle([1, 2], SETTLE_MS);
        expect([1, 2].map((n) => entries.get(n).state)).toEqual(['MERGED', 'MERGED']);
        const passedAfterRetry = (n: number) =>
          server
            .transitions()
            .some((t) => t.pr === n && t.to === 'TESTS_PASSED' && t.reason === 'TEST_RUN_PASSED_AFTER_RETRY');
        expect(passedAfterRetry(1)).toBe(true);
        expect(passedAfterRetry(2)).toBe(true);

        // PR 1's command ran twice on the same test commit: failed, then passed.
        const run1 = entries.get(1).verifiedByTestRun as string;
        expect(
          ci
            .records()
            .filter((r) => r.runId === run1)
            .map((r) => r.exitCode),
        ).toEqual([1, 0]);
        expect(
          new Set(
            ci
              .records()
              .filter((r) => r.runId === run1)
              .map((r) => r.sha),
          ).size,
        ).toBe(1);
        // PR 2's first command was killed before it could record anything; the retry passed.
        const run2 = entries.get(2).verifiedByTestRun as string;
        expect(
          ci
            .records()
            .filter((r) => r.runId === run2)
            .map((r) => r.exitCode),
        ).toEqual([0]);
        const log2 = (await queue.call('getTestRunLog', { testRunId: run2 })) as string;
        expect(log2).toContain('killed by SIGKILL (not by greenline)');
        expect(log2).toContain('(retry 1)');

        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([1, 2]);
        expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);

        // The timeline, the CLI and the metrics say it.
        const timeline = (await queue.call('getSubmittedPullRequest', { pr: { number: 1 }, includeTimeline: true }))
          .timeline as { reason: string; message: string }[];
        expect(timeline.find((t) => t.reason === 'TEST_RUN_PASSED_AFTER_RETRY')?.message).toMatch(/flaky/);
        const metrics = await fetch(`${server.url}/v1/getMergeQueueMetrics`, {
          headers: { 'x-api-token': server.token },
        }).then((r) => r.text());
        expect(metrics).toMatch(/greenline_ci_retries_total\{repo="acme\/flaky",branch="main"\} 2/);
        expect(metrics).toMatch(/greenline_ci_flaky_passes_total\{repo="acme\/flaky",branch="main"\} 2/);

        // A required status nobody reports: the run fails after the start timeout, naming it.
        await queue.call('updateQueue', {
          requiredStatuses: ['greenline/ci', 'security-scan'],
          requiredStatusStartTimeoutMinutes: 1,
        });
        expect((await queue.submit(3)).status).toBe(200);
        const started = Date.now();
        const third = (await queue.settle([3], SETTLE_MS)).get(3);
        expect(third.state).toBe('FAILED');
        expect(Date.now() - started).toBeLessThan(SETTLE_MS);
        expect(third.reason).toMatchObject({
          code: 'REQUIRED_STATUS_NEVER_STARTED',
          detail: 'required status "security-scan" not reported within 1 minute',
        });
        const status = await runCli([
          'pr',
          'status',
          '3',
          '--url',
          server.url,
          '--token',
          server.token,
          '--repo',
          SLUG,
          '--branch',
          'main',
        ]);
        expect(status.code, status.stderr).toBe(0);
        expect(status.stdout).toMatch(/never reported within requiredStatusStartTimeoutMinutes/);
        expect(status.stdout).toContain('required status "security-scan" not reported within 1 minute');
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([1, 2]);
      },
      SCENARIO_MS,
    );
  });
}
