/**
 * End to end, single mode with predictive testing: the built server as a process, a real bare git
 * remote, the built-in CI running the repository's check on each test commit. Ten PRs: two break the
 * check, one conflicts with a PR ahead of it. The target must end up with exactly the seven good PRs in
 * queue order, every one of them tested green on the base it landed on.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { featureFiles, SHARED_TXT, testBranchesDeleted, useScenario } from '../scenario.js';
import { targetHistoryProblems } from '../target-history.js';

const SLUG = 'example.com/acme/shop';
/** Submission order, which is the queue order (one priority), deliberately not the numeric order. */
const ORDER = [2, 5, 1, 7, 4, 10, 3, 8, 6, 9];
const BROKEN = [7, 3];
/** Changes the line #4 changes, and comes after #4. */
const CONFLICT = 8;
const GOOD = ORDER.filter((n) => !BROKEN.includes(n) && n !== CONFLICT);

export function singleModeScenario(): void {
  describe.concurrent('single mode, concurrency 3, ten PRs', () => {
    const world = useScenario({
      name: 'single',
      slug: SLUG,
      ciMaxParallel: 3,
      files: { 'check.sh': CHECK_SH, 'shared.txt': SHARED_TXT, 'features/base.txt': 'works\n' },
      openPrs: async (r) => {
        for (const n of ORDER) {
          await r.openPr(
            n,
            featureFiles(n, { broken: BROKEN.includes(n), conflicts: n === 4 || n === CONFLICT }),
            `Feature ${n}`,
          );
        }
      },
    });

    it(
      'merges exactly the good PRs in queue order, each tested green on its base; failures say why',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        // Paused while submitting: all ten are admitted together once it runs, in submission order,
        // and #8 is still mergeable with the target when it is submitted (#4 has not merged yet).
        await queue.create('single', 3, { state: 'PAUSED' });
        for (const n of ORDER) {
          expect((await queue.submit(n)).status).toBe(200);
          await new Promise((r) => setTimeout(r, 5)); // distinct submission times
        }
        await queue.call('updateQueue', { state: 'RUNNING' });

        const entries = await queue.settle(ORDER, SETTLE_MS);
        const expected = Object.fromEntries(ORDER.map((n) => [n, GOOD.includes(n) ? 'MERGED' : 'FAILED']));
        expect(Object.fromEntries(ORDER.map((n) => [n, entries.get(n).state]))).toEqual(expected);

        // The target holds exactly the good PRs, in queue order, with their content and nothing else.
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual(GOOD);
        expect(await remote.files('main')).toEqual(
          ['check.sh', 'features/base.txt', ...GOOD.map((n) => `features/pr-${n}.txt`), 'shared.txt'].sort(),
        );
        expect(await remote.readFile('main', 'shared.txt')).toBe(
          SHARED_TXT.replace('line 2', 'line 2 as #4 wants it').trimEnd(),
        );
        expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);

        // Why the three failed. The v1 API has no reason field; the server logs one line per transition.
        const failedWith = Object.fromEntries(
          server
            .transitions()
            .filter((t) => t.to === 'FAILED')
            .map((t) => [t.pr, t.reason]),
        );
        expect(failedWith).toEqual({
          7: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          3: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          [CONFLICT]: 'START_TEST_RUN_MERGE_CONFLICT',
        });
        // What the API does show of a CI failure: a failed run that tested the PR on a base free of other
        // broken PRs, with its required check FAILURE, and the CI command exiting 1 on that commit.
        for (const n of BROKEN) {
          const own = ci.records().filter((r) => r.prNumbers.includes(n) && r.exitCode === 1);
          const runs = await Promise.all(own.map(async (r) => ({ record: r, run: await queue.details(r.runId) })));
          const blamed = runs.filter(
            ({ record, run }) =>
              run.status === 'failed' &&
              run.testBranchSha === record.sha &&
              run.testedPullRequests.some((p: { prNumber: number }) => p.prNumber === n) &&
              !run.dependentPrs.some((d: number) => BROKEN.includes(d)) &&
              run.statusChecks.some(
                (s: { context: string; state: string }) => s.context === 'greenline/ci' && s.state === 'FAILURE',
              ),
          );
          expect(blamed.length, `a failed run of #${n} alone on good PRs`).toBeGreaterThan(0);
        }
        // The conflicting PR never got a test commit, so CI never ran it.
        expect(ci.records().filter((r) => r.prNumbers.includes(CONFLICT))).toEqual([]);

        expect((await queue.call('getQueue')).enqueuedPullRequests).toEqual([]);
        // Test branches are deleted once their runs are over.
        await testBranchesDeleted(remote);
        expect(server.problems(), 'warnings or errors in the server log').toEqual([]);
      },
      SCENARIO_MS,
    );
  });
}
