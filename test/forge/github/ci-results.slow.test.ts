/**
 * CI results of a test commit reach its run whatever their timing: a check reported before the run
 * knew its test commit (while the branch was being built), checks whose deliveries were all lost (read
 * again when the run starts and when it has heard nothing for a while), a workflow that could not
 * start (`startup_failure`), and a retry (`ciRetries`) asked for while the failed job's workflow run is
 * still running. GitHub is the FAKE API of fake-github-api.ts; deliveries are signed and posted to
 * the webhook endpoint, each built from GitHub's example payload of its event (webhook-examples.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKS_QUIET_MS } from '../../../src/app/observing/forge-poller.js';
import type { Entry } from '../../../src/engine/types.js';
import { createOnePrHarness, type GitHubHarness, submitAndTest } from './github-harness.js';
import { checkRunCompleted, gitHubExample } from './webhook-examples.js';

let h: GitHubHarness;

beforeEach(async () => {
  ({ h } = await createOnePrHarness());
});
afterEach(() => h.close());

const ACME = { owner: 'acme', name: 'web' };
const entry = async (n: number): Promise<Entry> =>
  (await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: n })).entry;
const checkRun = (sha: string, name: string, conclusion: 'success' | 'failure') =>
  checkRunCompleted(ACME, sha, name, conclusion);
/** GitHub's example delivery of `event` and `action` (completed to its schema), moved to acme/web: a copy to change. */
const example = (event: string, action: string) => gitHubExample(event, action, ACME);

describe('CI results of a test commit, whenever they come', () => {
  it('a check_run delivered while the test branch is being published (before createTestBranch returns) counts', async () => {
    const results: (string | undefined)[] = [];
    h.api.onAnswered = async (call) => {
      const ref = String(call.body?.ref ?? '');
      if (call.method !== 'POST' || !ref.startsWith('refs/heads/greenline-merge/')) return;
      // CI was quick: the check completed, and GitHub delivered it, as soon as the branch was there.
      results.push((await h.deliver('check_run', checkRun(String(call.body!.sha), 'build', 'success'))).result);
    };
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    expect(results).toEqual(['processed']);
    expect(await entry(1)).toMatchObject({ state: 'MERGED' });
  });

  it('a status delivered for the commit before any run knew it is kept and counts once the run gets that commit', async () => {
    const results: (string | undefined)[] = [];
    h.api.onAnswered = async (call, body) => {
      if (call.method !== 'POST' || call.path !== '/repos/acme/web/merges') return;
      // The merge commit is built on the temporary branch: CI that runs on every push reports on it.
      const sha = (body as { sha: string }).sha;
      const status = gitHubExample('status', undefined, ACME);
      Object.assign(status, { sha, context: 'build', state: 'success' });
      status.commit.sha = sha;
      results.push((await h.deliver('status', status)).result);
    };
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    expect(results).toEqual(['ignored']); // no run had that commit yet: held
    expect(await entry(1)).toMatchObject({ state: 'MERGED' });
    expect(await h.db.selectFrom('early_ci_statuses').selectAll().execute()).toEqual([]);
  });

  it('a check that completed before the run started testing, its delivery lost, is read when the run starts', async () => {
    h.api.onAnswered = (call) => {
      const ref = String(call.body?.ref ?? '');
      if (call.method !== 'POST' || !ref.startsWith('refs/heads/greenline-merge/')) return;
      h.api.checkRuns.push({
        id: 1,
        name: 'build',
        head_sha: String(call.body!.sha),
        status: 'completed',
        conclusion: 'success',
      });
    };
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    expect(await entry(1)).toMatchObject({ state: 'MERGED' });
  });

  it('a run whose deliveries were all lost completes once it has heard nothing for a while: its checks are read again', async () => {
    const { testSha } = await submitAndTest(h);
    h.api.checkRuns.push({ id: 1, name: 'build', head_sha: testSha, status: 'completed', conclusion: 'success' });
    h.api.clearLog();
    await h.app.poller.pollOnce();
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING'); // not quiet for long yet: nothing is read
    expect(h.api.log.filter((c) => c.includes(testSha))).toEqual([]);
    h.clock.advance(CHECKS_QUIET_MS);
    await h.app.poller.pollOnce();
    await h.runEffects();
    expect(h.api.log).toContain(`GET /repos/acme/web/commits/${testSha}/check-runs?per_page=100`);
    expect(await entry(1)).toMatchObject({ state: 'MERGED' });
  });

  it('a GitHub Actions workflow that could not start (check suite startup_failure) fails the run at once, saying why', async () => {
    const { testSha } = await submitAndTest(h);
    const suite = example('check_suite', 'completed');
    Object.assign(suite.check_suite, {
      head_sha: testSha,
      conclusion: 'startup_failure',
      app: { ...suite.check_suite.app, slug: 'github-actions', name: 'GitHub Actions' },
    });
    expect((await h.deliver('check_suite', suite)).result).toBe('processed');
    await h.runEffects();
    const e = await entry(1);
    expect(e).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    expect(e.timeline.at(-1)!.detail).toBe(
      'the GitHub Actions workflow could not start (startup_failure): check the workflow file on the test branch (GitHub shows the error on the workflow run)',
    );
  });

  it('a workflow run that could not start (workflow_run completed startup_failure) fails the run as well', async () => {
    const { testSha } = await submitAndTest(h);
    const completed = example('workflow_run', 'completed');
    Object.assign(completed.workflow_run, { head_sha: testSha, status: 'completed', conclusion: 'startup_failure' });
    await h.deliver('workflow_run', completed);
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('FAILED');
    expect(e.timeline.at(-1)!.detail).toMatch(/^the GitHub Actions workflow could not start \(startup_failure\)/);
  });

  it('a suite waiting for approval (action_required) fails the run, saying what to allow', async () => {
    const { testSha } = await submitAndTest(h);
    const suite = example('check_suite', 'completed');
    Object.assign(suite.check_suite, {
      head_sha: testSha,
      conclusion: 'action_required',
      app: { ...suite.check_suite.app, slug: 'github-actions', name: 'GitHub Actions' },
    });
    await h.deliver('check_suite', suite);
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('FAILED');
    expect(e.timeline.at(-1)!.detail).toMatch(/action_required.*approval/);
  });

  it('ciRetries: a job failing while its workflow run goes on is re-run once the run completed, and the retry counts once', async () => {
    h.api.requiredChecks.set('main', ['build', 'test']);
    await h.app.service.updateQueue(h.ctx, h.key, { ciRetries: 1 });
    const { testSha } = await submitAndTest(h);
    h.api.workflowRuns.set(77, {
      status: 'in_progress',
      conclusion: null,
      head_sha: testSha,
      event: 'push',
      head_repository: { full_name: 'acme/web' },
    });
    h.api.clearLog();
    await h.deliver('check_run', checkRun(testSha, 'build', 'failure'));
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING');
    // GitHub refuses to re-run a workflow run in progress: greenline waits for it to complete.
    expect(h.api.log.filter((c) => c.includes('rerun'))).toEqual([]);
    // Another job of the same workflow run fails meanwhile: the attempt being retried, not a new failure.
    await h.deliver('check_run', checkRun(testSha, 'test', 'failure'));
    await h.runEffects();
    expect((await entry(1)).state).toBe('TESTING');

    h.api.workflowRuns.set(77, { ...h.api.workflowRuns.get(77)!, status: 'completed', conclusion: 'failure' });
    const completed = example('workflow_run', 'completed');
    Object.assign(completed.workflow_run, { id: 77, head_sha: testSha, status: 'completed', conclusion: 'failure' });
    expect((await h.deliver('workflow_run', completed)).result).toBe('processed');
    await h.runEffects();
    expect(h.api.log.filter((c) => c.includes('rerun'))).toEqual([
      'POST /repos/acme/web/actions/runs/77/rerun-failed-jobs',
    ]);
    expect(h.api.workflowRuns.get(77)).toMatchObject({ status: 'queued', reruns: 1 });

    // The re-run jobs pass.
    await h.deliver('check_run', checkRun(testSha, 'build', 'success'));
    await h.deliver('check_run', checkRun(testSha, 'test', 'success'));
    await h.runEffects();
    const e = await entry(1);
    expect(e.state).toBe('MERGED');
    expect(e.timeline.map((t) => t.reason)).toContain('TEST_RUN_PASSED_AFTER_RETRY');
    expect(h.api.workflowRuns.get(77)!.reruns).toBe(1);
  });

  it('ciRetries: when the workflow_run completed delivery is lost, the waiting retry is carried out once the run is quiet', async () => {
    await h.app.service.updateQueue(h.ctx, h.key, { ciRetries: 1 });
    const { testSha } = await submitAndTest(h);
    h.api.workflowRuns.set(77, {
      status: 'in_progress',
      conclusion: null,
      head_sha: testSha,
      event: 'push',
      head_repository: { full_name: 'acme/web' },
    });
    await h.deliver('check_run', checkRun(testSha, 'build', 'failure'));
    await h.runEffects();
    h.api.workflowRuns.set(77, { ...h.api.workflowRuns.get(77)!, status: 'completed', conclusion: 'failure' });
    h.clock.advance(CHECKS_QUIET_MS);
    await h.app.poller.pollOnce();
    expect(h.api.workflowRuns.get(77)).toMatchObject({ status: 'queued', reruns: 1 });
    await h.deliver('check_run', checkRun(testSha, 'build', 'success'));
    await h.runEffects();
    expect((await entry(1)).state).toBe('MERGED');
  });
});
