/**
 * End to end, a CI command that hangs: with `testingTimeoutMinutes: 1` (whole minutes is all the API
 * takes, so this file needs a bit over a minute) the hanging PR fails with TEST_RUN_TIMEOUT, the
 * commands that hung are killed, and the PRs around it still merge.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_SH } from '../ci-script.js';
import { SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { testBranchesDeleted, useScenario } from '../scenario.js';
import { targetHistoryProblems } from '../target-history.js';
import { alive } from '../../helpers/alive.js';

const SLUG = 'example.com/acme/slow';
const HANGS = 2;
/** A test commit holding HANG records its shell's pid in the file HANG names, then never finishes. */
const CHECK = ['if [ -e HANG ]; then', '  echo $$ >> "$(cat HANG)"', '  sleep 300', 'fi', CHECK_SH].join('\n');

export function testingTimeoutScenario(): void {
  describe.concurrent('a CI command that hangs', () => {
    let pids: string;

    const world = useScenario({
      name: 'timeout',
      slug: SLUG,
      ciMaxParallel: 3,
      files: { 'check.sh': CHECK },
      openPrs: async (r, dir) => {
        pids = path.join(dir, 'hanging-pids');
        for (const n of [1, 2, 3]) {
          const files: Record<string, string> = { [`features/pr-${n}.txt`]: 'works\n' };
          if (n === HANGS) files.HANG = `${pids}\n`;
          await r.openPr(n, files, `Feature ${n}`);
        }
      },
    });

    it(
      'fails its PR with TEST_RUN_TIMEOUT after testingTimeoutMinutes, kills the command, and merges the others',
      async ({ onTestFailed }) => {
        const { remote, ci, server, queue } = world;
        onTestFailed(() => console.error(server.story(ci.records())));
        await queue.create('single', 2, { testingTimeoutMinutes: 1 });
        for (const n of [1, 2, 3]) expect((await queue.submit(n)).status).toBe(200);

        const entries = await queue.settle([1, 2, 3], SETTLE_MS);
        expect([1, 2, 3].map((n) => entries.get(n).state)).toEqual(['MERGED', 'FAILED', 'MERGED']);
        expect(server.transitions().find((t) => t.pr === HANGS && t.to === 'FAILED')?.reason).toBe('TEST_RUN_TIMEOUT');
        // Over the API: the run that tested the hanging PR failed, and its check never reported a result.
        const run = server.transitions().find((t) => t.pr === HANGS && t.to === 'TESTING')!.runId!;
        const details = await queue.details(run);
        expect(details.status).toBe('failed');
        expect(
          details.statusChecks.filter((s: { state: string }) => s.state === 'SUCCESS' || s.state === 'FAILURE'),
        ).toEqual([]);

        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([1, 3]);
        expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);

        // Every command that hung was stopped with its process group.
        const hung = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
        expect(hung.length).toBeGreaterThan(0);
        await waitUntil(
          'the hanging commands to be killed',
          30_000,
          async () => (hung.some(alive) ? undefined : true),
          () => hung.filter(alive),
        );
        await testBranchesDeleted(remote);
      },
      SCENARIO_MS,
    );
  });
}
