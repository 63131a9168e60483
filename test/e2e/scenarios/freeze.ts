/**
 * End to end, a frozen queue: the built server as a process, a real bare git remote, the built-in CI.
 * The queue is frozen from now for a few seconds with `stopTesting`: a PR submitted meanwhile is not
 * tested and not merged, an urgent PR is tested and merged during the freeze, and once the freeze ends
 * the queue wakes by itself, tests the waiting PR and merges it.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { useScenario } from '../scenario.js';

const SLUG = 'example.com/acme/frozen';
/** How long the freeze lasts: long enough for the urgent PR to be tested and merged within it. */
const FREEZE_MS = 25_000;

export function freezeScenario(): void {
  describe.concurrent('a frozen queue (stopTesting), an urgent PR, and the end of the freeze', () => {
    const world = useScenario({
      name: 'freeze',
      slug: SLUG,
      files: { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' },
      openPrs: async (r) => {
        await r.openPr(1, { 'features/pr-1.txt': 'works\n' }, 'Feature 1');
        await r.openPr(2, { 'features/pr-2.txt': 'works\n' }, 'Hotfix 2');
      },
    });

    it(
      'holds the PR back untested while frozen, merges the urgent one, and the held PR once the freeze ends',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        const from = Date.now();
        const until = new Date(from + FREEZE_MS).toISOString();
        await queue.create('single', 2, {
          freezes: {
            oneOff: [{ from: new Date(from).toISOString(), until, reason: 'release 2.4' }],
            stopTesting: true,
          },
        });
        expect(await queue.call('getQueue')).toMatchObject({
          state: 'RUNNING',
          frozen: true,
          frozenUntil: until,
          frozenReason: 'release 2.4',
        });

        expect((await queue.submit(1)).status).toBe(200);
        const urgent = await server.api('submitPullRequest', { ...queue.key, pr: { number: 2 }, priority: 'urgent' });
        expect(urgent.status).toBe(200);
        await waitUntil('the urgent PR to merge during the freeze', SETTLE_MS, async () =>
          (await queue.pr(2)).state === 'MERGED' ? true : undefined,
        );
        const mergedAt = Date.now();
        if (mergedAt < from + FREEZE_MS) {
          // Still frozen: the other PR waits, never tested.
          expect((await queue.pr(1)).state).toBe('PENDING');
          expect(ci.records().filter((r) => r.prNumbers.includes(1))).toEqual([]);
        }

        const entries = await queue.settle([1, 2], SETTLE_MS);
        expect(entries.get(1).state).toBe('MERGED');
        // PR 1 was tested only after the freeze ended, by the queue's own wakeup.
        expect(Date.now()).toBeGreaterThanOrEqual(from + FREEZE_MS);
        expect(ci.records().filter((r) => r.prNumbers.includes(2)).length).toBeGreaterThan(0);
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([2, 1]);
        expect(await queue.call('getQueue')).toMatchObject({ frozen: false, frozenUntil: null, frozenReason: null });
      },
      SCENARIO_MS,
    );
  });
}
