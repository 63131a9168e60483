/**
 * End to end, parallel mode: PRs impacting disjoint targets form independent lanes. Lane "web" starts
 * with a PR whose CI blocks (until the test releases it) and then fails; lane "api" must test and merge
 * meanwhile, without ever including a web PR in its test commits and without being restarted. Once
 * released, the blocked PR fails alone and the rest of its lane merges. While it blocks, the web PRs
 * report their positions in their lane and the blocked one an estimated merge time.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { testBranchesDeleted, useScenario } from '../scenario.js';
import { targetHistoryProblems } from '../target-history.js';
import type { Json } from '../../helpers/json.js';

const SLUG = 'example.com/acme/mono';
const WEB = [1, 3, 5];
const API = [2, 4, 6];
/** The first web PR: its test waits for the release file, then fails the check. */
const BLOCKED = 1;
/** A test commit holding WAIT waits until the file WAIT names exists. */
const CHECK = ['if [ -e WAIT ]; then', '  while [ ! -e "$(cat WAIT)" ]; do sleep 0.1; done', 'fi', CHECK_SH].join('\n');

export function parallelLanesScenario(): void {
  describe.concurrent('parallel mode, two disjoint lanes', () => {
    let release: string;
    const heads = new Map<number, string>();

    // The blocked run is released before the server stops.
    const world = useScenario(
      {
        // Enough CI runners that the blocked lane cannot starve the other of runners.
        name: 'lanes',
        slug: SLUG,
        ciMaxParallel: 6,
        files: { 'check.sh': CHECK },
        openPrs: async (r, dir) => {
          release = path.join(dir, 'release');
          for (const n of [...WEB, ...API].sort((a, b) => a - b)) {
            const lane = WEB.includes(n) ? 'web' : 'api';
            const files: Record<string, string> = {
              [`features/${lane}-${n}.txt`]: n === BLOCKED ? 'broken\n' : 'works\n',
            };
            if (n === BLOCKED) files.WAIT = `${release}\n`;
            heads.set(n, await r.openPr(n, files, `${lane} change ${n}`));
          }
        },
      },
      () => writeFileSync(release, ''),
    );

    /** Every run a PR of `prs` was tested in (from the log's TESTING transitions), with its details. */
    async function runsOf(prs: number[]): Promise<Json[]> {
      const ids = new Set(
        world.server
          .transitions()
          .filter((t) => prs.includes(t.pr) && t.to === 'TESTING')
          .map((t) => t.runId!),
      );
      return Promise.all([...ids].map(async (id) => ({ id, ...(await world.queue.details(id)) })));
    }

    const testingCount = (n: number): number =>
      world.server.transitions().filter((t) => t.pr === n && t.to === 'TESTING').length;

    it(
      'merges the api lane while the web lane is blocked, and the web lane without its failed PR',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        await queue.create('parallel', 6);
        // CI uploads impacted targets on every push, before anyone submits the PR.
        for (const [n, sha] of heads) {
          await queue.call('setImpactedTargets', {
            pr: { number: n, sha },
            impactedTargets: [WEB.includes(n) ? 'web' : 'api'],
          });
        }
        for (const n of [1, 2, 3, 4, 5, 6]) expect((await queue.submit(n)).status).toBe(200);

        const api = await queue.settle(API, SETTLE_MS);
        expect(API.map((n) => api.get(n).state)).toEqual(['MERGED', 'MERGED', 'MERGED']);
        // Not delayed: the api lane merged while the web lane's first PR is still being tested.
        expect((await queue.pr(BLOCKED)).state).toBe('TESTING');
        // Where the web lane stands: positions within the lane, the blocked run in flight, and an
        // estimate for it from the CI times the api lane's runs took.
        const web = await Promise.all(WEB.map((n) => queue.pr(n)));
        expect(web.map((p) => p.position)).toEqual([1, 2, 3]);
        expect(web[0].waitingOn.code).toBe('RUN_IN_FLIGHT');
        expect(Date.parse(web[0].estimatedMergeAt)).toBeGreaterThan(Date.parse(web[0].stateChangedAt));
        expect(api.get(2).position).toBeNull();
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual(API);

        writeFileSync(release, '');
        const all = await queue.settle([...WEB, ...API], SETTLE_MS);
        expect(Object.fromEntries([...all].map(([n, e]) => [n, e.state]))).toEqual({
          1: 'FAILED',
          2: 'MERGED',
          3: 'MERGED',
          4: 'MERGED',
          5: 'MERGED',
          6: 'MERGED',
        });
        expect(server.transitions().find((t) => t.pr === BLOCKED && t.to === 'FAILED')?.reason).toBe(
          'TEST_RUN_REQUIRED_STATUS_FAILED',
        );
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([2, 4, 6, 3, 5]);
        expect(await remote.files('main')).toEqual(
          ['check.sh', ...[2, 3, 4, 5, 6].map((n) => `features/${WEB.includes(n) ? 'web' : 'api'}-${n}.txt`)].sort(),
        );

        // Lanes never mix: every test commit of a lane holds only that lane's PRs.
        for (const [lane, other] of [
          [API, WEB],
          [WEB, API],
        ] as const) {
          const runs = await runsOf(lane);
          expect(runs.length).toBeGreaterThanOrEqual(lane.length);
          for (const run of runs) {
            const inRun = [...run.dependentPrs, ...run.testedPullRequests.map((p: { prNumber: number }) => p.prNumber)];
            expect(
              inRun.filter((n) => other.includes(n)),
              `run ${run.id} of ${lane.join(', ')}`,
            ).toEqual([]);
          }
        }
        // Neither lane restarted the other: each api PR and the blocked web PR were tested once.
        expect([...API, BLOCKED].map(testingCount)).toEqual([1, 1, 1, 1]);
        // The web PRs behind the failure were retested without it (and only then merged).
        for (const n of [3, 5]) {
          const verifying = await queue.details(all.get(n).verifiedByTestRun);
          expect(verifying.dependentPrs).not.toContain(BLOCKED);
        }
        // Every web run that merged started after the api lane had merged, so here even single mode's
        // promise holds: each target commit has a tree CI passed on the base it landed on.
        expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);

        await testBranchesDeleted(remote);
        expect(server.problems(), 'warnings or errors in the server log').toEqual([]);
      },
      SCENARIO_MS,
    );
  });
}
