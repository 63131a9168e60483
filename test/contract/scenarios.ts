/**
 * The forge contract's scenarios: one table, each row what people and CI do on a forge and what
 * greenline must make of it, read through the service's public reads (a PR's state, its reason in
 * words) and the target branch (its sha, what it holds). A row names the capabilities it needs
 * (forge-world.ts); forge-contract.ts runs it in every world that has them.
 *
 * Adding a row: a name, `needs`, and `run(w)` written against ForgeWorld alone. A row that needs
 * something no world can express yet adds a capability to CAPABILITIES and an optional method to
 * ForgeWorld, and implements it in the worlds that can.
 */
import { expect } from 'vitest';
import type { PrState } from '../../src/engine/types.js';
import type { PrView } from '../../src/app/service-port.js';
import type { Capability, ForgeWorld } from './forge-world.js';

export interface Scenario {
  name: string;
  needs: readonly Capability[];
  run(w: ForgeWorld): Promise<void>;
}

/** The most poll intervals a queue takes to come to rest after an action. */
const MAX_TICKS = 6;

/**
 * Lets greenline work on its own, one poll interval at a time, until its queue is still: an interval
 * that changed nothing of it.
 */
async function settle(w: ForgeWorld): Promise<void> {
  const state = async (): Promise<string> => JSON.stringify((await w.service.getQueue(w.ctx, w.key)).snapshot);
  let before = await state();
  for (let i = 0; i < MAX_TICKS; i++) {
    await w.tick();
    const after = await state();
    if (after === before) return;
    before = after;
  }
  throw new Error(`the queue still changes after ${MAX_TICKS} poll intervals`);
}

const view = (w: ForgeWorld, n: number): Promise<PrView> =>
  w.service.getSubmittedPullRequest(w.ctx, w.key, { number: n });

/** The PR's state, with its reason code and message (the words every reader shows). */
async function expectPr(
  w: ForgeWorld,
  n: number,
  state: PrState,
  reason?: { code?: string; words?: RegExp },
): Promise<PrView> {
  const v = await view(w, n);
  const seen = `${v.entry.state} ${v.reason.code}: ${v.reason.message} ${v.reason.detail ?? ''}`;
  expect(v.entry.state, seen).toBe(state);
  if (reason?.code) expect(v.reason.code, seen).toBe(reason.code);
  if (reason?.words) expect(`${v.reason.message} ${v.reason.detail ?? ''}`).toMatch(reason.words);
  return v;
}

/** The test commit of the run testing PR `n`, checked to be built on the target as it is now. */
async function testCommit(w: ForgeWorld, n: number): Promise<string> {
  const v = await expectPr(w, n, 'TESTING');
  const { run } = await w.service.getTestingDetails(w.ctx, w.key, v.entry.runId!);
  expect(run.baseSha).toBe(await w.targetSha());
  expect(run.testSha).toBeTruthy();
  return run.testSha!;
}

/** What the run testing PR `n` tests against and what changed, as its test run details show it. */
async function changesOf(w: ForgeWorld, n: number): Promise<unknown> {
  const { entry } = await view(w, n);
  return (await w.service.getTestingDetails(w.ctx, w.key, entry.runId!)).run.changes;
}

async function submit(w: ForgeWorld, n: number): Promise<void> {
  await w.service.submitPullRequest(w.ctx, w.key, { prNumber: n });
  await settle(w);
}

/** Opens and submits PR `n`, and sees it tested: its test commit. */
async function openAndTest(w: ForgeWorld, n: number): Promise<string> {
  await w.openPr(n);
  await submit(w, n);
  return testCommit(w, n);
}

/** The checks of a test commit pass; the PR merges. */
async function pass(w: ForgeWorld, n: number, sha: string): Promise<void> {
  await w.reportCi(sha, 'build', 'success');
  await settle(w);
  await expectPr(w, n, 'MERGED');
}

const cap = <T>(f: T | undefined, name: string): T => {
  if (!f) throw new Error(`the world has no ${name}, yet claims the capability`);
  return f;
};

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'admission: a ready PR submitted is tested on the tip of the target',
    needs: [],
    async run(w) {
      await openAndTest(w, 1);
      expect(await w.targetHolds()).toEqual([]);
    },
  },
  {
    name: 'admission: a PR that conflicts waits, saying why, and is tested once the target no longer conflicts',
    needs: ['conflicts'],
    async run(w) {
      await w.openPr(1, { conflicting: true });
      await submit(w, 1);
      await expectPr(w, 1, 'NOT_READY', { words: /conflict/i });
      await cap(w.resolveConflict, 'resolveConflict').call(w, 1);
      await settle(w);
      await pass(w, 1, await testCommit(w, 1));
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  {
    name: 'admission: a draft waits, saying why, and is tested once marked ready',
    needs: ['drafts'],
    async run(w) {
      await w.openPr(1, { draft: true });
      await submit(w, 1);
      await expectPr(w, 1, 'NOT_READY', { words: /draft/i });
      await cap(w.setDraft, 'setDraft').call(w, 1, false);
      await settle(w);
      await testCommit(w, 1);
    },
  },
  {
    name: 'statuses: a passed required check merges the tested PR; other checks do not decide',
    needs: [],
    async run(w) {
      const sha = await openAndTest(w, 1);
      await w.reportCi(sha, 'lint', 'failure');
      await w.reportCi(sha, 'build', 'pending');
      await settle(w);
      await expectPr(w, 1, 'TESTING');
      await pass(w, 1, sha);
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  {
    name: 'statuses: a failed required check fails the PR naming the check; nothing lands',
    needs: [],
    async run(w) {
      const before = await w.targetSha();
      const sha = await openAndTest(w, 1);
      await w.reportCi(sha, 'build', 'failure');
      await settle(w);
      await expectPr(w, 1, 'FAILED', { code: 'TEST_RUN_REQUIRED_STATUS_FAILED', words: /"build" reported failure/ });
      expect(await w.targetSha()).toBe(before);
    },
  },
  {
    name: 'retries: with ciRetries 1 a failed check is run again, and a pass then merges',
    needs: [],
    async run(w) {
      await w.service.updateQueue(w.ctx, w.key, { ciRetries: 1 });
      const sha = await openAndTest(w, 1);
      await w.reportCi(sha, 'build', 'failure');
      await settle(w);
      await expectPr(w, 1, 'TESTING');
      await pass(w, 1, sha);
      const v = await view(w, 1);
      expect(v.entry.timeline.map((t) => t.reason)).toContain('TEST_RUN_PASSED_AFTER_RETRY');
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  ...(['squash', 'merge_commit', 'rebase'] as const).map(
    (mergeMethod): Scenario => ({
      name: `batch (${mergeMethod}): two PRs tested together land together`,
      needs: [],
      async run(w) {
        await w.service.updateQueue(w.ctx, w.key, { mergeMethod, batch: true, batchingMinSize: 2 });
        await w.openPr(1);
        await w.openPr(2);
        await w.service.submitPullRequest(w.ctx, w.key, { prNumber: 1 });
        await submit(w, 2);
        const sha = await testCommit(w, 2);
        expect((await view(w, 1)).entry.runId).toBe((await view(w, 2)).entry.runId);
        await w.reportCi(sha, 'build', 'success');
        await settle(w);
        await expectPr(w, 1, 'MERGED');
        await expectPr(w, 2, 'MERGED');
        expect(await w.targetHolds()).toEqual(['#1 v1', '#2 v1']);
      },
    }),
  ),
  ...(['squash', 'merge_commit', 'rebase'] as const).map(
    (mergeMethod): Scenario => ({
      name: `in a row (${mergeMethod}): PR 2 is tested on top of PR 1; passed first, it lands after PR 1`,
      needs: [],
      async run(w) {
        await w.service.updateQueue(w.ctx, w.key, { mergeMethod, concurrency: 2 });
        const first = await openAndTest(w, 1);
        await w.openPr(2);
        await submit(w, 2);
        const { entry } = await view(w, 2);
        const { run } = await w.service.getTestingDetails(w.ctx, w.key, entry.runId!);
        expect(run.prs.map((p) => p.number)).toEqual([1, 2]);
        await w.reportCi(run.testSha!, 'build', 'success');
        await settle(w);
        await expectPr(w, 2, 'TESTS_PASSED', { words: /ahead/ });
        expect(await w.targetHolds()).toEqual([]);
        await pass(w, 1, first);
        await expectPr(w, 2, 'MERGED');
        expect(await w.targetHolds()).toEqual(['#1 v1', '#2 v1']);
      },
    }),
  ),
  {
    name: 'changed files: a run names its base and what changed, alone and tested on top of another run',
    needs: ['changedFiles'],
    async run(w) {
      await w.service.updateQueue(w.ctx, w.key, { concurrency: 2 });
      const target = await w.targetSha();
      const first = await openAndTest(w, 1);
      expect(await changesOf(w, 1)).toEqual({
        baseSha: target,
        files: ['pr-1.txt'],
        prs: [{ number: 1, files: ['pr-1.txt'] }],
      });
      await w.openPr(2);
      await submit(w, 2);
      // PR 2 is tested on what PR 1's run tests: that is its base, and only its own file changed from there.
      expect(await changesOf(w, 2)).toEqual({
        baseSha: first,
        files: ['pr-2.txt'],
        prs: [{ number: 2, files: ['pr-2.txt'] }],
      });
    },
  },
  {
    name: "changed files: a batch names every PR's own files, and the files of all of them together",
    needs: ['changedFiles'],
    async run(w) {
      await w.service.updateQueue(w.ctx, w.key, { batch: true, batchingMinSize: 2 });
      await w.openPr(1);
      await w.openPr(2);
      await w.service.submitPullRequest(w.ctx, w.key, { prNumber: 1 });
      await submit(w, 2);
      await testCommit(w, 2);
      expect(await changesOf(w, 2)).toEqual({
        baseSha: await w.targetSha(),
        files: ['pr-1.txt', 'pr-2.txt'],
        prs: [
          { number: 1, files: ['pr-1.txt'] },
          { number: 2, files: ['pr-2.txt'] },
        ],
      });
    },
  },
  {
    name: 'in a row: PR 1 fails, so PR 2, tested on top of it, is tested again without it; only PR 2 lands',
    needs: [],
    async run(w) {
      await w.service.updateQueue(w.ctx, w.key, { concurrency: 2 });
      const first = await openAndTest(w, 1);
      await w.openPr(2);
      await submit(w, 2);
      const onTop = (await view(w, 2)).entry.runId;
      await w.reportCi(first, 'build', 'failure');
      await settle(w);
      await expectPr(w, 1, 'FAILED');
      const again = await testCommit(w, 2);
      expect((await view(w, 2)).entry.runId).not.toBe(onTop);
      await pass(w, 2, again);
      expect(await w.targetHolds()).toEqual(['#2 v1']);
    },
  },
  {
    name: 'push cancels: a push to a testing PR cancels it; its old test commit passing lands nothing',
    needs: [],
    async run(w) {
      const before = await w.targetSha();
      const old = await openAndTest(w, 1);
      await w.pushToPr(1, 'v2');
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'PR_PUSHED_TO' });
      await w.reportCi(old, 'build', 'success');
      await settle(w);
      expect(await w.targetSha()).toBe(before);
      await submit(w, 1);
      await pass(w, 1, await testCommit(w, 1));
      expect(await w.targetHolds()).toEqual(['#1 v2']);
    },
  },
  {
    name: 'sha-guarded merge: the target moves between test and merge; nothing untested lands',
    needs: [],
    async run(w) {
      const sha = await openAndTest(w, 1);
      await w.reportCi(sha, 'build', 'success');
      await w.pushToTarget('hotfix');
      await settle(w);
      // Tested again on the target as it now is: the first test commit lacks the hotfix.
      expect(await w.targetHolds()).toEqual(['hotfix']);
      const again = await testCommit(w, 1);
      expect(again).not.toBe(sha);
      await pass(w, 1, again);
      expect(await w.targetHolds()).toEqual(['#1 v1', 'hotfix']);
    },
  },
  {
    name: 'closed: a PR closed while testing leaves the queue; nothing lands',
    needs: ['close'],
    async run(w) {
      const before = await w.targetSha();
      const sha = await openAndTest(w, 1);
      await cap(w.closePr, 'closePr').call(w, 1);
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'PR_CLOSED', words: /closed/i });
      await w.reportCi(sha, 'build', 'success');
      await settle(w);
      expect(await w.targetSha()).toBe(before);
    },
  },
  {
    name: 'base changed: a testing PR retargeted to another branch leaves the queue',
    needs: ['baseChange'],
    async run(w) {
      await openAndTest(w, 1);
      await cap(w.changeBase, 'changeBase').call(w, 1, 'release');
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'PR_BASE_BRANCH_CHANGED', words: /release/ });
    },
  },
  {
    name: 'stacks: a PR stacked on another waits for its base, and lands after the one below it',
    needs: ['stacks'],
    async run(w) {
      await w.openPr(1);
      await cap(w.openStackedPr, 'openStackedPr').call(w, 2, 1);
      await submit(w, 2);
      await submit(w, 1);
      await expectPr(w, 2, 'NOT_READY', { code: 'BASE_BRANCH_MISMATCH', words: /retargeted/ });
      await pass(w, 1, await testCommit(w, 1));
      expect(await w.targetHolds()).toEqual(['#1 v1']);
      await cap(w.retargetStacked, 'retargetStacked').call(w, 2);
      await settle(w);
      await pass(w, 2, await testCommit(w, 2));
      expect(await w.targetHolds()).toEqual(['#1 v1', '#2 v1']);
    },
  },
  {
    name: 'outside merge: a PR merged outside the queue leaves it as merged',
    needs: ['outsideMerge'],
    async run(w) {
      const sha = await openAndTest(w, 1);
      await cap(w.mergeOutside, 'mergeOutside').call(w, 1);
      await settle(w);
      await expectPr(w, 1, 'MERGED', { code: 'MANUAL_MERGE', words: /outside/i });
      const merged = await w.targetSha();
      await w.reportCi(sha, 'build', 'success');
      await settle(w);
      expect(await w.targetSha()).toBe(merged);
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  {
    name: "labels: adding the queue's enqueueing label submits the PR, removing it cancels",
    needs: ['labels'],
    async run(w) {
      const label = (await w.service.getQueue(w.ctx, w.key)).snapshot.config.enqueueingLabel;
      const setLabel = cap(w.setLabel, 'setLabel').bind(w);
      await w.openPr(1);
      await setLabel(1, 'unrelated', true);
      await settle(w);
      await expect(view(w, 1)).rejects.toMatchObject({ code: 'PR_NOT_SUBMITTED' });
      await setLabel(1, label, true);
      await settle(w);
      await testCommit(w, 1);
      await setLabel(1, label, false);
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'USER_REQUESTED' });
    },
  },
  {
    name: 'comment commands: `/greenline merge` submits the PR, `/greenline cancel` cancels it',
    needs: ['comments'],
    async run(w) {
      const comment = cap(w.comment, 'comment').bind(w);
      await w.openPr(1);
      await comment(1, '/greenline merge');
      await settle(w);
      await testCommit(w, 1);
      await comment(1, '/greenline cancel');
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'USER_REQUESTED' });
    },
  },
  {
    name: 'comment commands: a command that cannot be carried out is answered on the PR, saying why',
    needs: ['comments'],
    async run(w) {
      await w.openPr(1);
      await cap(w.comment, 'comment').call(w, 1, '/greenline cancel');
      await settle(w);
      expect(await cap(w.replies, 'replies').call(w, 1)).toEqual([expect.stringMatching(/#1 is not in the queue/)]);
    },
  },
  {
    name: 'drafts: a testing PR converted to a draft leaves the queue',
    needs: ['drafts'],
    async run(w) {
      await openAndTest(w, 1);
      await cap(w.setDraft, 'setDraft').call(w, 1, true);
      await settle(w);
      await expectPr(w, 1, 'CANCELLED', { code: 'PR_CONVERTED_TO_DRAFT', words: /draft/i });
    },
  },
  {
    name: 'permissions: a command from someone without write access is refused, answered why; the PR stays queued',
    needs: ['comments', 'permissions'],
    async run(w) {
      const comment = cap(w.comment, 'comment').bind(w);
      await openAndTest(w, 1);
      await comment(1, '/greenline cancel', 'reader');
      await settle(w);
      await expectPr(w, 1, 'TESTING');
      expect(await cap(w.replies, 'replies').call(w, 1)).toEqual([
        expect.stringMatching(/only people with write access/),
      ]);
    },
  },
  {
    name: 'permissions: the enqueueing label set by someone without write access is ignored, answered why; the PR is not submitted',
    needs: ['labels', 'comments', 'permissions'],
    async run(w) {
      const label = (await w.service.getQueue(w.ctx, w.key)).snapshot.config.enqueueingLabel;
      await w.openPr(1);
      await cap(w.setLabel, 'setLabel').call(w, 1, label, true, 'reader');
      await settle(w);
      await expect(view(w, 1)).rejects.toMatchObject({ code: 'PR_NOT_SUBMITTED' });
      expect(await cap(w.replies, 'replies').call(w, 1)).toEqual([
        expect.stringMatching(/ignored the label .* only people with write access/),
      ]);
    },
  },
  {
    name: 'deliveries lost: a CI result greenline never heard of is read from the forge once the run is quiet, and the PR merges',
    needs: ['lostDeliveries'],
    async run(w) {
      const sha = await openAndTest(w, 1);
      await cap(w.reportCiUnheard, 'reportCiUnheard').call(w, sha, 'build', 'success');
      await settle(w);
      await expectPr(w, 1, 'TESTING');
      // The queue reads a quiet run's checks again after ten minutes without news.
      for (let i = 0; i < 11; i++) await w.tick();
      await settle(w);
      await expectPr(w, 1, 'MERGED');
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  {
    name: 'CI results read at every poll: a check the forge holds but never told of is acted on at the next poll',
    needs: ['polledChecks'],
    async run(w) {
      const sha = await openAndTest(w, 1);
      await cap(w.reportCiUnheard, 'reportCiUnheard').call(w, sha, 'build', 'success');
      await w.tick();
      await expectPr(w, 1, 'MERGED');
      expect(await w.targetHolds()).toEqual(['#1 v1']);
    },
  },
  {
    name: 'strict protection: every PR of a tested squash batch merges, each brought up to date; the PRs say what it cost',
    needs: ['strictProtection'],
    async run(w) {
      await cap(w.requireUpToDate, 'requireUpToDate').call(w);
      await w.service.updateQueue(w.ctx, w.key, { batch: true, batchingMinSize: 2 });
      await w.openPr(1);
      await w.openPr(2);
      await w.service.submitPullRequest(w.ctx, w.key, { prNumber: 1 });
      await submit(w, 2);
      await w.reportCi(await testCommit(w, 1), 'build', 'success');
      await settle(w);
      await expectPr(w, 1, 'MERGED', { words: /up to date before merging/ });
      await expectPr(w, 2, 'MERGED', { words: /up to date before merging/ });
      expect(await w.targetHolds()).toEqual(['#1 v1', '#2 v1']);
    },
  },
];

/** A world's name and capabilities (a WorldKind, without the need to make one). */
export interface WorldInfo {
  name: string;
  capabilities: ReadonlySet<Capability>;
}

export const runsIn = (s: Scenario, w: WorldInfo): boolean => s.needs.every((c) => w.capabilities.has(c));

/** Which scenario runs in which world, as a Markdown table. */
export function contractTable(scenarios: readonly Scenario[], worlds: readonly WorldInfo[]): string {
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    row(['Scenario', 'Needs', ...worlds.map((w) => w.name)]),
    row(['---', '---', ...worlds.map(() => ':-:')]),
    ...scenarios.map((s) =>
      row([s.name, s.needs.join(', ') || '—', ...worlds.map((w) => (runsIn(s, w) ? 'runs' : '—'))]),
    ),
  ].join('\n');
}
