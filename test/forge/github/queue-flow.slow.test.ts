/**
 * The github forge inside the real service: the exact GitHub API calls of a submit → test → merge, a
 * failed check, and a push to a queued PR, with CI results and PR changes arriving as signed deliveries
 * to the webhook endpoint. GitHub is the FAKE API of fake-github-api.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry } from '../../../src/engine/types.js';
import { createOnePrHarness, type GitHubHarness, submitAndTest } from './github-harness.js';
import { checkRunCompleted, gitHubExample } from './webhook-examples.js';

let h: GitHubHarness;
let base: string;
let head1: string;

beforeEach(async () => {
  ({ h, base, head1 } = await createOnePrHarness());
});
afterEach(() => h.close());

const ACME = { owner: 'acme', name: 'web' };
const entry = async (n: number): Promise<Entry> =>
  (await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n })).entry;
/** GitHub's check_run completed delivery for acme/web, about `sha`. */
const checkRun = (sha: string, name: string, conclusion: Parameters<typeof checkRunCompleted>[3]) =>
  checkRunCompleted(ACME, sha, name, conclusion);

/**
 * The calls made are exactly `expected`, and those of each chain in its order. Effects of different
 * chains — the queue's events, each run's effects — may interleave (src/store/effects.ts).
 */
function expectCalls(
  log: readonly string[],
  expected: readonly string[],
  chains: readonly (readonly string[])[],
): void {
  expect([...log].sort()).toEqual([...expected].sort());
  for (const chain of chains) {
    let from = 0;
    for (const call of chain) {
      const at = log.indexOf(call, from);
      expect(
        at,
        `${call} after ${chain[chain.indexOf(call) - 1] ?? 'the start'} in ${JSON.stringify(log, null, 1)}`,
      ).toBeGreaterThanOrEqual(0);
      from = at + 1;
    }
  }
}

/** Status check and comment of one queue event for PR 1 (token auth: a commit status). */
const show = (comment: 'GET+POST' | 'PATCH'): string[] => [
  'GET /repos/acme/web/pulls/1',
  `POST /repos/acme/web/statuses/${head1}`,
  ...(comment === 'PATCH'
    ? ['PATCH /repos/acme/web/issues/comments/1001']
    : ['GET /repos/acme/web/issues/1/comments?per_page=100', 'POST /repos/acme/web/issues/1/comments']),
];

describe('github forge in the service', () => {
  it('submit → test → merge makes exactly these GitHub calls', async () => {
    h.api.clearLog();
    const { run, branch, testSha } = await submitAndTest(h);
    expect(h.api.commits.get(testSha)).toEqual([base, head1]);
    const build = [
      `POST /repos/acme/web/git/refs`, // temp branch at the target head
      'GET /repos/acme/web/pulls/1', // the message of its merge commit
      'POST /repos/acme/web/merges', // PR 1 merged into it
      'POST /repos/acme/web/git/refs', // the test branch
      `DELETE /repos/acme/web/git/refs/heads/greenline-merge-temp/pr-1/${run}`,
      'POST /repos/acme/web/pulls', // draft PR of the test branch
    ];
    const events = [...show('GET+POST'), ...show('PATCH'), ...show('PATCH')]; // submitted, queued, testing
    expectCalls(
      h.api.log,
      [
        'GET /repos/acme/web/pulls/1', // submit reads the PR
        'GET /repos/acme/web/git/ref/heads/main', // and the target of the idle queue
        'GET /repos/acme/web/git/matching-refs/heads/greenline-merge/', // taking the queue: test branches no run needs
        ...events,
        ...build,
        `GET /repos/acme/web/compare/${base}...${testSha}`, // what the run changed, once built
        `GET /repos/acme/web/compare/${base}...${head1}`, // and what the PR changed
        'GET /repos/acme/web/branches/main', // required statuses: branch protection
        'GET /repos/acme/web/rules/branches/main?per_page=100', // and rulesets
        `GET /repos/acme/web/commits/${testSha}/status?per_page=100`, // checks reported before the run knew its commit
        `GET /repos/acme/web/commits/${testSha}/check-runs?per_page=100`,
      ],
      [['GET /repos/acme/web/pulls/1', 'GET /repos/acme/web/git/ref/heads/main'], events, build],
    );
    expect(h.api.calls.find((c) => c.path === '/repos/acme/web/pulls')!.body).toMatchObject({
      head: branch,
      base: 'main',
      draft: true,
    });
    expect(h.api.statuses.map((s) => s.state)).toEqual(['pending', 'pending', 'pending']);
    h.api.clearLog();

    const res = await h.deliver('check_run', checkRun(testSha, 'build', 'success'));
    expect(res).toMatchObject({ status: 200, body: { result: 'accepted' }, result: 'processed' });
    await h.runEffects();
    expect((await entry(1)).state).toBe('MERGED');
    expect(h.api.log).toEqual([
      'GET /repos/acme/web/branches/main', // whether greenline's own check is required
      'GET /repos/acme/web/rules/branches/main?per_page=100',
      'GET /repos/acme/web/git/ref/heads/main', // compare-and-swap: the target is where it was tested
      'GET /repos/acme/web/pulls/1', // the PR is at its tested head
      'GET /repos/acme/web/branches/main', // nothing in protection or rulesets refuses the merge
      'GET /repos/acme/web/rules/branches/main?per_page=100',
      'PUT /repos/acme/web/pulls/1/merge',
      ...show('PATCH'), // merged
      `GET /repos/acme/web/pulls?head=acme:${branch}&state=open&per_page=100`,
      'PATCH /repos/acme/web/pulls/2', // draft PR closed
      `DELETE /repos/acme/web/git/refs/heads/${branch}`,
    ]);
    expect(h.api.calls.find((c) => c.method === 'PUT')!.body).toEqual({ sha: head1, merge_method: 'squash' });
    expect(h.api.pulls.get(1)).toMatchObject({ merged: true, state: 'closed' });
    expect(h.api.pulls.get(2)!.state).toBe('closed');
    expect(h.api.branches.has(branch)).toBe(false);
    expect(h.api.statuses.at(-1)).toEqual({ sha: head1, context: 'greenline (main)', state: 'success' });
    expect(h.api.comments).toHaveLength(1);
    expect(h.api.comments[0]!.body).toMatch(/<!-- greenline:queue=main -->[\s\S]*✅ Merged/);
  });

  it('a failed required check fails the PR: status failure, comment updated, test branch and draft PR cleaned up, nothing merged', async () => {
    const { branch, testSha } = await submitAndTest(h);
    h.api.clearLog();
    expect((await h.deliver('check_run', checkRun(testSha, 'lint', 'failure'))).result).toBe('processed');
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING'); // lint is not required
    await h.deliver('check_run', checkRun(testSha, 'build', 'failure'));
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('FAILED');
    expect(e.lastReason).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    const events = [...show('PATCH'), ...show('PATCH')]; // pending failure (blame settles at once: nothing ahead of it), failed
    const cleanUp = [
      `GET /repos/acme/web/pulls?head=acme:${branch}&state=open&per_page=100`,
      'PATCH /repos/acme/web/pulls/2',
      `DELETE /repos/acme/web/git/refs/heads/${branch}`,
    ];
    expectCalls(h.api.log, [...events, ...cleanUp], [events, cleanUp]);
    expect(h.api.statuses.at(-1)).toMatchObject({ state: 'failure' });
    expect(h.api.comments[0]!.body).toMatch(
      /❌ Failed[\s\S]*Taken out of the queue\. Failed: a required CI status failed\. required status "build" reported failure\. Fix the problem/,
    );
    expect(h.api.branches.get('main')).toBe(base);
  });

  it("ciRetries: a failed required check is run again through GitHub (failed Actions jobs re-run, other Apps' suites re-requested); a pass then merges, flaky", async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { ciRetries: 1 });
    const { testSha } = await submitAndTest(h);
    h.api.workflowRuns.set(77, {
      status: 'completed',
      conclusion: 'failure',
      head_sha: testSha,
      event: 'push',
      head_repository: { full_name: 'acme/web' },
    });
    h.api.checkSuites.push(
      {
        id: 88,
        head_sha: testSha,
        status: 'completed',
        conclusion: 'failure',
        app: { slug: 'buildkite' },
        rerequests: 0,
      },
      {
        id: 89,
        head_sha: testSha,
        status: 'completed',
        conclusion: 'success',
        app: { slug: 'lint-app' },
        rerequests: 0,
      },
      {
        id: 90,
        head_sha: testSha,
        status: 'completed',
        conclusion: 'failure',
        app: { slug: 'github-actions' },
        rerequests: 0,
      },
    );
    h.api.clearLog();
    await h.deliver('check_run', checkRun(testSha, 'build', 'failure'));
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING');
    expect(h.api.log).toEqual(
      expect.arrayContaining([
        `GET /repos/acme/web/actions/runs?head_sha=${testSha}&per_page=100`,
        'POST /repos/acme/web/actions/runs/77/rerun-failed-jobs',
        `GET /repos/acme/web/commits/${testSha}/check-suites?per_page=100`,
        'POST /repos/acme/web/check-suites/88/rerequest',
      ]),
    );
    expect(h.api.workflowRuns.get(77)).toMatchObject({ status: 'queued', reruns: 1 });
    expect(h.api.checkSuites.map((s) => s.rerequests)).toEqual([1, 0, 0]);
    await h.deliver('check_run', checkRun(testSha, 'build', 'success'));
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('MERGED');
    expect(e.timeline.map((t) => t.reason)).toContain('TEST_RUN_PASSED_AFTER_RETRY');
  });

  it('a check run concluded cancelled is not a failure: it is run again, and cancelled twice fails TEST_RUN_CANCELLED_BY_CI', async () => {
    const { testSha } = await submitAndTest(h);
    await h.deliver('check_run', checkRun(testSha, 'build', 'cancelled'));
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING');
    await h.deliver('check_run', checkRun(testSha, 'build', 'cancelled'));
    await h.runEffects();
    expect(await entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_CANCELLED_BY_CI' });
  });

  it('a push to a queued PR (synchronize) cancels it with PR_PUSHED_TO', async () => {
    const { branch } = await submitAndTest(h);
    const pushed = h.api.commit(head1, 'pr1 again');
    h.api.pulls.get(1)!.head.sha = pushed;
    h.api.clearLog();
    const sync = gitHubExample('pull_request', 'synchronize', ACME);
    sync.number = 1;
    Object.assign(sync.pull_request, { number: 1, merged: false });
    sync.pull_request.base.ref = 'main';
    sync.pull_request.head.sha = pushed;
    const res = await h.deliver('pull_request', sync);
    expect(res.result).toBe('processed');
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('CANCELLED');
    expect(e.lastReason).toBe('PR_PUSHED_TO');
    expect(h.api.log).toEqual([
      'GET /repos/acme/web/pulls/1', // the PR read again
      'GET /repos/acme/web/pulls/1', // cancelled: shown on the new head
      `POST /repos/acme/web/statuses/${pushed}`,
      'PATCH /repos/acme/web/issues/comments/1001',
      `GET /repos/acme/web/pulls?head=acme:${branch}&state=open&per_page=100`,
      'PATCH /repos/acme/web/pulls/2',
      `DELETE /repos/acme/web/git/refs/heads/${branch}`,
    ]);
  });

  it('a PR merged on GitHub outside the queue is MANUAL_MERGE when the poller sees it first; closed unmerged it is PR_CLOSED', async () => {
    h.api.openPr(2, { headSha: h.api.commit(base, 'pr2') });
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 2 });
    Object.assign(h.api.pulls.get(1)!, { state: 'closed', merged: true });
    Object.assign(h.api.pulls.get(2)!, { state: 'closed', merged: false });
    await h.app.poller.pollOnce();
    expect([(await entry(1)).state, (await entry(1)).lastReason]).toEqual(['MERGED', 'MANUAL_MERGE']);
    expect([(await entry(2)).state, (await entry(2)).lastReason]).toEqual(['CANCELLED', 'PR_CLOSED']);
  });
});

describe('github forge in the service: direct merge (directMergeMode = always)', () => {
  beforeEach(async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { directMergeMode: 'always' });
  });
  const passBuild = (sha: string) => h.api.statuses.push({ sha, context: 'build', state: 'success' });
  const submit = async () => {
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    return entry(1);
  };

  it('a PR built on the tip of main whose required checks passed merges at once, without a test branch', async () => {
    passBuild(head1);
    h.api.clearLog();
    const e = await submit();
    expect([e.state, e.lastReason]).toEqual(['MERGED', 'MERGE_GRAPH_DIRECT_MERGE']);
    expect(h.api.pulls.get(1)!.merged).toBe(true);
    expect(h.api.log).toContain(`GET /repos/acme/web/compare/${base}...${head1}`);
    expect(h.api.log.filter((l) => l.includes('/git/refs') || l.includes('/merges'))).toEqual([]);
  });

  it('is tested when a required check has not passed on its head', async () => {
    h.api.statuses.push({ sha: head1, context: 'build', state: 'pending' });
    expect((await submit()).state).toBe('TESTING');
  });

  it('is tested when main moved past the commit it is built on', async () => {
    passBuild(head1);
    h.api.branches.set('main', h.api.commit(base, 'someone else'));
    expect((await submit()).state).toBe('TESTING');
  });

  it("the poller merges the queue's only PR directly once GitHub reports it mergeable with its checks passed", async () => {
    h.api.pulls.get(1)!.mergeable = null; // GitHub still computing
    expect((await submit()).state).toBe('NOT_READY');
    h.api.pulls.get(1)!.mergeable = true;
    passBuild(head1);
    await h.app.poller.pollOnce();
    await h.runEffects();
    const e = await entry(1);
    expect([e.state, e.lastReason]).toEqual(['MERGED', 'MERGE_GRAPH_DIRECT_MERGE']);
  });
});
