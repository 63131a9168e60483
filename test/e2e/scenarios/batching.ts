/**
 * End to end with batching: groups of four PRs share one test run. Twelve PRs in three batches:
 * one broken PR in the first and in the last batch, one PR of the second batch conflicting with a PR
 * of the first. Failed batches are bisected until the culprit is alone; the innocent PRs merge, and
 * every target commit is a state of a test commit that CI passed on the base it landed on.
 *
 * A batch under bisection steps out of the merge order: the batches behind it are retested without it
 * and merge when they pass, so which of the two conflicting PRs lands first depends on CI timing. The
 * one that lands first merges; the other fails to merge onto it.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { featureFiles, SHARED_TXT, testBranchesDeleted, useScenario } from '../scenario.js';
import { targetHistoryProblems } from '../target-history.js';

const SLUG = 'example.com/acme/batches';
/** Submission order = queue order: batches [1 2 3 4] [5 6 7 8] [9 10 11 12]. */
const ORDER = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const BROKEN = [2, 11];
/** PRs 3 (first batch) and 6 (second batch) change the same line. */
const CONFLICTING = [3, 6];
const GOOD = ORDER.filter((n) => !BROKEN.includes(n) && !CONFLICTING.includes(n));

export function batchingScenario(): void {
  describe.concurrent('batching: batchingMinSize 4, twelve PRs', () => {
    const world = useScenario({
      name: 'batch',
      slug: SLUG,
      ciMaxParallel: 3,
      files: { 'check.sh': CHECK_SH, 'shared.txt': SHARED_TXT },
      openPrs: async (r) => {
        for (const n of ORDER) {
          await r.openPr(
            n,
            featureFiles(n, { broken: BROKEN.includes(n), conflicts: CONFLICTING.includes(n) }),
            `Feature ${n}`,
          );
        }
      },
    });

    it(
      'bisects failed batches, merges every innocent PR, each batch tested green on its base',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        // batchingMaxWaitTimeMinutes is whole minutes: the batches are filled by submitting twelve PRs
        // while paused, so that no group waits for the timer.
        await queue.create('single', 3, {
          state: 'PAUSED',
          batch: true,
          batchingMinSize: 4,
          batchingMaxWaitTimeMinutes: 1,
        });
        for (const n of ORDER) {
          expect((await queue.submit(n)).status).toBe(200);
          await new Promise((r) => setTimeout(r, 5));
        }
        await queue.call('updateQueue', { state: 'RUNNING' });

        const entries = await queue.settle(ORDER, SETTLE_MS);
        // Exactly one of the conflicting pair merged: the other conflicts with it.
        const [winner, loser] = entries.get(3).state === 'MERGED' ? [3, 6] : [6, 3];
        const merged = [...GOOD, winner].sort((a, b) => a - b);
        const expected = Object.fromEntries(ORDER.map((n) => [n, merged.includes(n) ? 'MERGED' : 'FAILED']));
        expect(Object.fromEntries(ORDER.map((n) => [n, entries.get(n).state]))).toEqual(expected);

        // Each merged PR landed once, and nothing else did.
        expect((await remote.targetCommits()).map((c) => c.prNumber).sort((a, b) => a! - b!)).toEqual(merged);
        expect(await remote.files('main')).toEqual(
          ['check.sh', ...merged.map((n) => `features/pr-${n}.txt`), 'shared.txt'].sort(),
        );
        expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);

        // Batches were really tested together: CI's first run was the first batch, and PRs merged in
        // groups verified by one run each, at least one of them a batch of three or more.
        expect(ci.records()[0]!.prNumbers).toEqual([1, 2, 3, 4]);
        const groups = new Map<string, number[]>();
        for (const n of merged)
          groups.set(entries.get(n).verifiedByTestRun, [...(groups.get(entries.get(n).verifiedByTestRun) ?? []), n]);
        expect(Math.max(...[...groups.values()].map((g) => g.length))).toBeGreaterThanOrEqual(3);

        const failedWith = Object.fromEntries(
          server
            .transitions()
            .filter((t) => t.to === 'FAILED')
            .map((t) => [t.pr, t.reason]),
        );
        expect(failedWith).toEqual({
          2: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          11: 'TEST_RUN_REQUIRED_STATUS_FAILED',
          [loser]: 'START_TEST_RUN_MERGE_CONFLICT',
        });

        expect((await queue.call('getQueue')).enqueuedPullRequests).toEqual([]);
        await testBranchesDeleted(remote);
        expect(server.problems(), 'warnings or errors in the server log').toEqual([]);
      },
      SCENARIO_MS,
    );
  });
}
