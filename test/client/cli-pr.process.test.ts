/**
 * `greenline pr …`, `targets set` and `test-run …` against a real server process that tests and
 * merges on a real git remote: the built-in CI (`test ! -f fail.txt`, slower with slow.txt, hanging with
 * hang.txt) for github.com/acme/web, and external CI reporting through `test-run report` for github.com/acme/ext.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../src/git/git.js';
import { GreenlineClient, type SubmittedPullRequest } from '../../src/client/index.js';
import { startCliServer, type CliServer } from './cli-server.js';
import { waitUntil } from '../helpers/wait-until.js';

const WEB = ['--repo', 'github.com/acme/web', '--branch', 'main'];
const EXT = ['--repo', 'github.com/acme/ext', '--branch', 'ext-main'];
const FAST = ['--interval', '0.2', '--timeout', '60'];

let s: CliServer;
/** Head shas of the PRs, opened before the server starts. */
const heads: Record<number, string> = {};
beforeAll(async () => {
  s = await startCliServer({
    repos: [
      {
        slug: 'github.com/acme/web',
        ciCommand: 'test ! -f fail.txt && { test ! -f slow.txt || sleep 4; } && { test ! -f hang.txt || sleep 120; }',
      },
      { slug: 'github.com/acme/ext', ciCommand: null },
    ],
    async beforeServe(git) {
      await git.setRef('refs/heads/ext-main', git.baseSha);
      heads[1] = await git.openPr(1, { 'one.txt': 'one\n' }, { title: 'Add one' });
      heads[2] = await git.openPr(2, { 'fail.txt': 'boom\n' }, { title: 'Break the build' });
      heads[3] = await git.openPr(3, { 'slow.txt': 'slow\n' }, { title: 'Slow one' });
      heads[4] = await git.openPr(4, { 'four.txt': '4\n' }, { title: 'Add four' });
      heads[5] = await git.openPr(5, { 'five.txt': '5\n' });
      heads[20] = await git.openPr(20, { 'twenty.txt': '20\n' }, { title: 'External CI' });
      heads[21] = await git.openPr(21, { 'twenty-one.txt': '21\n' }, { title: 'External CI fails' });
      // 6 and 7 add the same file differently, so do 8 and 9; 10 tests slowly.
      heads[6] = await git.openPr(6, { 'shared.txt': 'six\n' }, { title: 'Six shares' });
      heads[7] = await git.openPr(7, { 'shared.txt': 'seven\n' }, { title: 'Seven shares' });
      heads[8] = await git.openPr(8, { 'clash.txt': 'eight\n' }, { title: 'Eight clashes' });
      heads[9] = await git.openPr(9, { 'clash.txt': 'nine\n' }, { title: 'Nine clashes' });
      heads[10] = await git.openPr(10, { 'slow.txt': 'slow\n', 'ten.txt': '10\n' }, { title: 'Ten, slowly' });
      heads[11] = await git.openPr(11, { 'hang.txt': '11\n' }, { title: 'Eleven hangs' });
    },
  });
  expect((await s.run(['queue', 'create', ...WEB])).code).toBe(0);
}, 60_000);
afterAll(() => s?.stop());

const json = (out: string) => JSON.parse(out);

describe('greenline pr', () => {
  it('submit --wait follows the PR to MERGED, printing each state, and exits 0; the PR is on main', async () => {
    const r = await s.run(['pr', 'submit', '1', ...WEB, '--priority', 'high', '--wait', ...FAST]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^Submitted PR #1 to github.com\/acme\/web main\.$/m);
    expect(r.stderr).toMatch(/PR #1 MERGED$/m);
    const states = [...r.stderr.matchAll(/PR #1 ([A-Z_]+)$/gm)].map((m) => m[1]);
    expect(states.at(-1)).toBe('MERGED');
    expect(new Set(states).size).toBe(states.length);
    expect(r.stdout).toMatch(/^State:\s+MERGED since /m);
    expect(r.stdout).toMatch(/^Priority:\s+high \(10\)$/m);
    expect(await s.git.readFile('refs/heads/main', 'one.txt')).toBe('one\n');
  });

  it('status --wait exits 1 when the PR fails, saying it was not merged', async () => {
    expect((await s.run(['pr', 'submit', '2', ...WEB, '--no-batch'])).code).toBe(0);
    const r = await s.run(['pr', 'status', '2', ...WEB, '--wait', ...FAST]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PR #2 FAILED$/m);
    expect(r.stderr).toMatch(
      /^PR #2 ended FAILED: not merged\. Failed: a required CI status failed\. \(required status "greenline\/ci" reported failure: exited with code 1 after \d+s\)$/m,
    );
    expect(r.stdout).toMatch(/^Batching:\s+never \(tested alone\)$/m);
    expect(r.stdout).toMatch(/^Why:\s+Failed: a required CI status failed\.$/m);
    expect(r.stdout).toMatch(/^Detail:\s+required status "greenline\/ci" reported failure: exited with code 1/m);
    const runId =
      /^Test run:\s+(\S+) \(log: greenline test-run log (\S+) --repo github\.com\/acme\/web --branch main\)$/m.exec(
        r.stdout,
      );
    expect(runId?.[1]).toBe(runId?.[2]);
    const log = await s.run(['test-run', 'log', runId![1]!, ...WEB]);
    expect(log.stdout).toMatch(/exited with code 1/);
    expect(await s.git.readFile('refs/heads/main', 'fail.txt')).toBeNull();
  });

  it("status shows a PR as a block or as the API's JSON; list shows the queue's PRs", async () => {
    const [human, asJson, list, merged] = await Promise.all([
      s.run(['pr', 'status', '1', ...WEB]),
      s.run(['pr', 'status', '1', ...WEB, '--json']),
      s.run(['pr', 'list', ...WEB]),
      s.run(['pr', 'list', ...WEB, '--state', 'merged', '--json']),
    ]);
    expect(human.stdout).toMatch(/^Pull request:\s+#1 Add one \(by Dev One\)$/m);
    expect(human.stdout).toMatch(/^In queue:\s+no$/m);
    expect(json(asJson.stdout)).toMatchObject({
      prNumber: 1,
      state: 'MERGED',
      priorityName: 'high',
      isCurrentlySubmittedToQueue: false,
    });
    expect(json(asJson.stdout).verifiedByTestRun).toEqual(expect.any(String));
    expect(list.stdout).toMatch(/^PR\s+STATE\s+POS\s+ETA\s+PRIORITY\s+SINCE\s+AUTHOR\s+TITLE$/m);
    expect(list.stdout).toMatch(/^#2\s+FAILED\s+-\s+-\s+medium no-batch\s+\S+\s+Dev One\s+Break the build$/m);
    expect(list.stdout).toMatch(/^#1\s+MERGED\s+-\s+-\s+high\s/m);
    expect(json(merged.stdout).pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1]);
  });

  it('status and list show the position, what the PR waits on and its estimated merge time', async () => {
    // PRs 1 and 2 were tested already: the queue has observed CI times to estimate from.
    expect((await s.run(['pr', 'submit', '11', ...WEB])).code).toBe(0);
    await until(11, (p) => p.state === 'TESTING');
    const [human, list] = await Promise.all([s.run(['pr', 'status', '11', ...WEB]), s.run(['pr', 'list', ...WEB])]);
    expect(human.stdout).toMatch(/^Position:\s+1$/m);
    expect(human.stdout).toMatch(
      /^Waiting on:\s+Its test run is in flight \(started (under a minute|\d+ minutes?) ago; runs take (under a minute|about \d+ minutes?)\)\. \(RUN_IN_FLIGHT\)$/m,
    );
    expect(human.stdout).toMatch(
      /^Estimated merge:\s+in \d+ min: (\S+ \d\d:\d\d UTC|between \S+ \d\d:\d\d and (\S+ )?\d\d:\d\d UTC, most likely (\S+ )?\d\d:\d\d)$/m,
    );
    expect(list.stdout).toMatch(/^#11\s+TESTING\s+1\s+in \d+ min \(\d\d:\d\d UTC\)\s+medium\s/m);
    expect((await s.run(['pr', 'cancel', '11', ...WEB])).code).toBe(0);
    expect((await s.run(['pr', 'status', '11', ...WEB])).stdout).not.toMatch(/^Position:/m);
  });

  it('list pages through the server with --limit', async () => {
    const [r, human] = await Promise.all([
      s.run(['pr', 'list', ...WEB, '--limit', '1', '--json']),
      s.run(['pr', 'list', ...WEB, '--limit', '1']),
    ]);
    const page = json(r.stdout);
    expect(page.pullRequests).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    expect(human.stdout).toMatch(/\(more: raise --limit\)$/m);
  });

  it('restart restarts a PR under test; cancel removes a PR; both refuse PRs not in the queue', async () => {
    expect((await s.run(['pr', 'submit', '3', ...WEB])).code).toBe(0);
    const client = new GreenlineClient({ url: s.url, token: s.token });
    const request = {
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      targetBranch: 'main',
      pr: { number: 3 },
    };
    await expect
      .poll(async () => (await client.getSubmittedPullRequest(request)).state, { timeout: 30_000, interval: 50 })
      .toBe('TESTING');
    const restarted = await s.run(['pr', 'restart', '3', ...WEB]);
    expect(restarted).toMatchObject({ code: 0, stdout: 'Restarted the tests of PR #3 in github.com/acme/web main.\n' });
    const cancelled = await s.run(['pr', 'cancel', '3', ...WEB]);
    expect(cancelled).toMatchObject({ code: 0, stdout: 'Cancelled PR #3 in github.com/acme/web main.\n' });
    expect(json((await s.run(['pr', 'status', '3', ...WEB, '--json'])).stdout).state).toBe('CANCELLED');

    const [cancelAgain, restartAgain, never, badNumber] = await Promise.all([
      s.run(['pr', 'cancel', '3', ...WEB]),
      s.run(['pr', 'restart', '3', ...WEB]),
      s.run(['pr', 'status', '99', ...WEB]),
      s.run(['pr', 'status', 'x1', ...WEB]),
    ]);
    expect(cancelAgain.code).toBe(1);
    expect(cancelAgain.stderr).toMatch(/\(400 PR_NOT_IN_QUEUE\)/);
    expect(restartAgain.code).toBe(1);
    expect(restartAgain.stderr).toMatch(
      /\(400 PR_NOT_IN_QUEUE\); to test it again, submit it: `greenline pr submit 3 --repo github.com\/acme\/web --branch main`$/m,
    );
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(
      /Pull request #99 has never been submitted to this queue \(404 PR_NOT_SUBMITTED\); submit it with `greenline pr submit`/,
    );
    expect(badNumber).toMatchObject({
      code: 2,
      stderr: 'error: A pull request number is a positive integer, got "x1"\n',
    });
  });
});

/** Reads PR `n` until `done` holds for it; fails after 30 s. */
/** The test branch greenline-merge/pr-N/<run id> pushed to the remote for CI to test: its run id and commit. */
async function testBranchOf(n: number): Promise<{ runId: string; testSha: string }> {
  const ref = await waitUntil(
    `the test branch of PR ${n} on the remote`,
    30_000,
    async () =>
      (await git(['for-each-ref', '--format=%(refname) %(objectname)', `refs/heads/greenline-merge/pr-${n}/`], {
        cwd: s.git.remote,
      })) || undefined,
    undefined,
    100,
  );
  const [, runId, testSha] = /^refs\/heads\/greenline-merge\/pr-\d+\/(\S+) (\S+)$/.exec(ref)!;
  return { runId: runId!, testSha: testSha! };
}

async function until(n: number, done: (pr: SubmittedPullRequest) => boolean): Promise<SubmittedPullRequest> {
  const client = new GreenlineClient({ url: s.url, token: s.token });
  const request = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main', pr: { number: n } };
  let pr: SubmittedPullRequest | undefined;
  return waitUntil(
    `PR #${n} to reach the expected state`,
    30_000,
    async () => {
      pr = await client.getSubmittedPullRequest(request);
      return done(pr) ? pr : undefined;
    },
    () => pr && { state: pr.state, reason: pr.reason.code },
    100,
  );
}

describe('greenline pr and queue get say why a PR is where it is', () => {
  it('a PR that conflicts with main waits NOT_READY, naming the files; queue get lists it, marked and explained', async () => {
    expect((await s.run(['pr', 'submit', '7', ...WEB, '--wait', ...FAST])).code).toBe(0);
    expect((await s.run(['pr', 'submit', '6', ...WEB])).code).toBe(0);
    const pr = await until(6, (p) => p.reason.code === 'CONFLICTS_WITH_TARGET');
    expect(pr.state).toBe('NOT_READY');
    const [status, queue] = await Promise.all([s.run(['pr', 'status', '6', ...WEB]), s.run(['queue', 'get', ...WEB])]);
    expect(status.stdout).toMatch(
      /^Why:\s+Not ready: it conflicts with the target branch; merge or rebase the target branch into it, push, and submit it again\.$/m,
    );
    expect(status.stdout).toMatch(/^Detail:\s+conflicting files: shared\.txt$/m);
    expect(status.stdout).toMatch(/^Mergeability:\s+not_mergeable$/m);
    expect(queue.stdout).toMatch(/^#\s+PR\s+STATE\s+PRIORITY\s+SINCE\s+ETA\s+TITLE\s+WHY$/m);
    expect(queue.stdout).toMatch(
      /^-\s+#6\s+NOT_READY\s+medium\s+\S+\s+unknown\s+Six shares\s+Not ready: it conflicts with the target branch; .* \(conflicting files: shared\.txt\)$/m,
    );
    expect(queue.stdout).not.toMatch(/NOT_READY ones are not listed/);
    expect((await s.run(['pr', 'cancel', '6', ...WEB])).code).toBe(0);
  });

  it('a PR that fails on a conflict with a PR ahead of it says so, and is not mergeable', async () => {
    // Submitted together (the CLI would start a process each), so that 9 is queued before 8 merges.
    const client = new GreenlineClient({ url: s.url, token: s.token });
    const queue = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
    await client.submitPullRequest({ ...queue, pr: { number: 8 } });
    await client.submitPullRequest({ ...queue, pr: { number: 9 } });
    const r = await s.run(['pr', 'status', '9', ...WEB, '--wait', ...FAST]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^PR #9 ended FAILED: not merged\. Failed: its changes conflict with the target branch or with a PR ahead of it, so no CI ran\. \(PR #9 conflicts with .*clash\.txt\)$/m,
    );
    expect(r.stdout).toMatch(/^Mergeability:\s+not_mergeable$/m);
    expect(await s.git.readFile('refs/heads/main', 'clash.txt')).toBe('eight\n');
  }, 60_000);

  it('a PR pushed to while testing ends CANCELLED with the reason and its new head on the --wait line', async () => {
    expect((await s.run(['pr', 'submit', '10', ...WEB])).code).toBe(0);
    expect((await until(10, (p) => p.state === 'TESTING')).state).toBe('TESTING');
    const head = await s.git.openPr(
      10,
      { 'ten.txt': 'ten again\n' },
      { parent: heads[10], title: 'Ten, pushed again' },
    );
    const r = await s.run(['pr', 'status', '10', ...WEB, '--wait', ...FAST]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^PR #10 ended CANCELLED: not merged\\. Cancelled: new commits were pushed to the PR; submit it again to test its new head\\. \\(new head ${head}\\)$`,
        'm',
      ),
    );
  });
});

describe('greenline targets set and test-run', () => {
  it('uploads targets from a file; the run that merged the PR reports them, and its log is readable', async () => {
    const sha = heads[4]!;
    const set = await s.run(['targets', 'set', '4', ...WEB, '--sha', sha, '--file', '-'], {}, 'web/app\n\nlib/core\n');
    expect(set).toMatchObject({
      code: 0,
      stdout: `Set the impacted targets of PR #4 at ${sha.slice(0, 12)}: 2 targets\n`,
    });
    expect((await s.run(['pr', 'submit', '4', ...WEB, '--wait', ...FAST])).code).toBe(0);
    const runId = json((await s.run(['pr', 'status', '4', ...WEB, '--json'])).stdout).verifiedByTestRun as string;

    const [asJson, human, log] = await Promise.all([
      s.run(['test-run', 'get', runId, ...WEB, '--json']),
      s.run(['test-run', 'get', runId, ...WEB]),
      s.run(['test-run', 'log', runId, ...WEB]),
    ]);
    expect(json(asJson.stdout)).toMatchObject({
      status: 'succeeded',
      impactedTargetsForTestedPrs: ['web/app', 'lib/core'],
      testedPullRequests: [{ prNumber: 4, title: 'Add four' }],
      statusChecks: [{ context: 'greenline/ci', state: 'SUCCESS' }],
    });
    expect(human.stdout).toMatch(/^Status:\s+succeeded$/m);
    expect(human.stdout).toMatch(
      /^Required statuses:\s+greenline\/ci, from the repository's settings \(repo connect --required-status or its CI command\)$/m,
    );
    expect(human.stdout).toMatch(/^greenline\/ci\s+SUCCESS/m);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout.length).toBeGreaterThan(0);
  });

  it('takes "ALL" and a JSON file; refuses ambiguous flags (exit 2) and a bad sha (400)', async () => {
    const sha = heads[5]!;
    const [all, fromJson, both, neither, badSha, missing] = await Promise.all([
      s.run(['targets', 'set', '5', ...WEB, '--sha', sha, '--all']),
      s.run(['targets', 'set', '5', ...WEB, '--sha', sha, '--file', '-', '--json'], {}, '["a", "b", "c"]'),
      s.run(['targets', 'set', '5', ...WEB, '--sha', sha, '--all', '--file', 'x']),
      s.run(['targets', 'set', '5', ...WEB, '--sha', sha]),
      s.run(['targets', 'set', '5', ...WEB, '--sha', 'abc', '--all']),
      s.run(['targets', 'set', '5', ...WEB, '--sha', sha, '--file', 'nope.txt']),
    ]);
    expect(all.stdout).toMatch(/: ALL \(impacts everything\)$/m);
    expect(fromJson).toMatchObject({ code: 0, stdout: '{}\n' });
    expect(both).toMatchObject({ code: 2, stderr: 'error: Give exactly one of --file FILE and --all\n' });
    expect(neither.code).toBe(2);
    expect(badSha.code).toBe(1);
    expect(badSha.stderr).toMatch(/pr\/sha.*\(400 VALIDATION_FAILED\)/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Cannot read targets from nope.txt/);
  });

  it('external CI reports statuses with test-run report, by run id or by test commit, and the PR merges', async () => {
    const client = new GreenlineClient({ url: s.url, token: s.token });
    await client.createQueue({ repo: { host: 'github.com', owner: 'acme', name: 'ext' }, targetBranch: 'ext-main' });
    expect((await s.run(['queue', 'update', ...EXT, '--required-statuses', 'ext-ci'])).code).toBe(0);
    expect((await s.run(['pr', 'submit', '20', ...EXT])).code).toBe(0);

    const { runId, testSha } = await testBranchOf(20);
    const pending = await s.run([
      'test-run',
      'report',
      '--sha',
      testSha,
      '--repo',
      'github.com/acme/ext',
      '--context',
      'ext-ci',
      '--state',
      'pending',
    ]);
    expect(pending).toMatchObject({ code: 0, stdout: `Reported ext-ci pending for ${testSha}.\n` });
    const details = json((await s.run(['test-run', 'get', runId, ...EXT, '--json'])).stdout);
    expect(details).toMatchObject({
      status: 'in_progress',
      requiredStatuses: ['ext-ci'],
      statusChecks: [{ context: 'ext-ci', state: 'PENDING' }],
    });

    const success = await s.run([
      'test-run',
      'report',
      runId,
      '--repo',
      'github.com/acme/ext',
      '--context',
      'ext-ci',
      '--state',
      'success',
      '--target-url',
      'https://ci.example.com/jobs/1',
      '--description',
      'all green',
    ]);
    expect(success.code, success.stderr).toBe(0);
    expect((await s.run(['pr', 'status', '20', ...EXT, '--wait', ...FAST])).code).toBe(0);
    expect(await s.git.readFile('refs/heads/ext-main', 'twenty.txt')).toBe('20\n');

    const [unknownRun, noLog, both] = await Promise.all([
      s.run(['test-run', 'get', 'no-such-run', ...EXT]),
      s.run(['test-run', 'log', runId, ...EXT]),
      s.run([
        'test-run',
        'report',
        runId,
        '--sha',
        testSha,
        '--repo',
        'github.com/acme/ext',
        '--context',
        'x',
        '--state',
        'success',
      ]),
    ]);
    expect(unknownRun.code).toBe(1);
    expect(unknownRun.stderr).toMatch(/\(404 TEST_RUN_NOT_FOUND\)/);
    expect(noLog.code).toBe(1);
    expect(noLog.stderr).toMatch(/\(404 LOG_NOT_FOUND\)/);
    expect(both.code).toBe(2);

    // A failure an external CI reports: its log is behind the check's link, not in greenline.
    expect((await s.run(['pr', 'submit', '21', ...EXT, '--no-batch'])).code).toBe(0);
    const { runId: runId21 } = await testBranchOf(21);
    const failure = await s.run([
      'test-run',
      'report',
      runId21,
      '--repo',
      'github.com/acme/ext',
      '--context',
      'ext-ci',
      '--state',
      'failure',
      '--target-url',
      'https://ci.example.com/jobs/21',
    ]);
    expect(failure.code, failure.stderr).toBe(0);
    const failed = await s.run(['pr', 'status', '21', ...EXT, '--wait', ...FAST]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^Check:\s+https:\/\/ci\.example\.com\/jobs\/21$/m);
    expect(failed.stdout).toMatch(new RegExp(`^Test run:\\s+${runId21} \\(log: at the check's link above\\)$`, 'm'));
    expect(failed.stdout).not.toMatch(/greenline test-run log/);
  });
});
