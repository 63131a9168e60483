/**
 * The pull request page in a real Chromium against `greenline demo` (harness.ts): reasons in words with
 * their codes in tooltips, CI statuses with their links, the log, only the actions the API accepts,
 * links to the forge as the API gives them, live updates that keep the focus, a PR never submitted,
 * accessibility and screenshots.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, haveChromium, PR, QUEUE_KEY, screenshots, useDemo } from './harness.js';

interface Pr {
  state: string;
  prSha: string;
  priorityName: string;
  reason: { code: string; message: string };
  prUrl: string | null;
  headCommitUrl: string | null;
  timeline: { testRunId: string | null }[];
}

describe.skipIf(!haveChromium)('the pull request page in Chromium, on greenline demo', () => {
  const demo = useDemo();
  const getPr = async (n: number) =>
    (await demo.api('getSubmittedPullRequest', { ...QUEUE_KEY, pr: { number: n }, includeTimeline: true })) as Pr;

  /** Polls the API until one of `numbers` is in `state` (with `code`, when given); returns its number. */
  async function prIn(numbers: number[], state: string, code?: string): Promise<number> {
    const deadline = Date.now() + 100_000;
    for (;;) {
      for (const n of numbers) {
        const pr = await getPr(n);
        if (pr.state === state && (code === undefined || pr.reason.code === code)) return n;
      }
      if (Date.now() > deadline) throw new Error(`none of ${numbers.join(', ')} became ${state} ${code ?? ''}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async function open(n: number): Promise<Page> {
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${PR(n)}`);
    await page.locator('#pr-title').waitFor();
    return page;
  }

  /** The page's links to the forge are the API's, and there are none when the API has none. */
  async function expectForgeLinks(page: Page, pr: Pr, n: number): Promise<void> {
    const prLink = page.getByRole('link', { name: `Pull request #${n} on the forge (opens in a new tab)` });
    const commitLink = page.getByRole('link', { name: /^Head commit .* on the forge/ });
    if (pr.prUrl === null) expect(await prLink.count()).toBe(0);
    else expect(await prLink.getAttribute('href')).toBe(pr.prUrl);
    if (pr.headCommitUrl === null) expect(await commitLink.count()).toBe(0);
    else expect(await commitLink.getAttribute('href')).toBe(pr.headCommitUrl);
  }

  it('shows a failed PR: the reason as a sentence with its code in a tooltip, the CI statuses with their links, the log', async () => {
    // #4 breaks the test (demo): it fails with a required status failed.
    await prIn([4], 'FAILED', 'TEST_RUN_REQUIRED_STATUS_FAILED');
    const pr = await getPr(4);
    const runId = pr.timeline.find((t) => t.testRunId !== null)!.testRunId!;
    // A status reported from outside, with its page, and one whose address is not http(s).
    await demo.api('reportStatus', {
      repo: QUEUE_KEY.repo,
      testRunId: runId,
      context: 'lint',
      state: 'success',
      url: 'https://ci.example.test/lint/4',
      description: 'clean',
    });
    await demo.api('reportStatus', {
      repo: QUEUE_KEY.repo,
      testRunId: runId,
      context: 'scan',
      state: 'success',
      url: 'javascript:alert(1)',
    });
    const page = await open(4);
    await page.getByRole('heading', { name: '#4 Add gift cards' }).waitFor();

    const badge = page.locator('.page-head .badge');
    expect(await badge.textContent()).toBe('Failed');
    expect(await badge.getAttribute('title')).toBe('FAILED');
    const reason = page.locator('#pr-reason .why');
    expect(await reason.textContent()).toMatch(
      /^Failed: a required CI status failed\. required status "greenline\/ci" reported failure/,
    );
    expect(await reason.getAttribute('title')).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(await page.locator('#timeline [title="TEST_RUN_REQUIRED_STATUS_FAILED"]').count()).toBeGreaterThan(0);
    // No code is shown as text anywhere on the page: they are in tooltips.
    const text = (await page.locator('main').textContent()) ?? '';
    for (const code of [
      'TEST_RUN_REQUIRED_STATUS_FAILED',
      'API_REQUESTED',
      'PENDING_FAILURE',
      'FAILURE',
      'in_progress',
    ])
      expect(text).not.toContain(code);

    const run = page.locator(`.run-card[data-run="${runId}"]`);
    const ci = run.locator('.checks li', { hasText: 'greenline/ci' });
    expect(await ci.locator('.badge').textContent()).toBe('Failure');
    expect(await ci.locator('.badge').getAttribute('title')).toBe('FAILURE');
    const lint = run.locator('.checks li', { hasText: 'lint' });
    expect(await lint.getByRole('link', { name: 'Details of lint (opens in a new tab)' }).getAttribute('href')).toBe(
      'https://ci.example.test/lint/4',
    );
    expect(await run.locator('.checks li', { hasText: 'scan' }).getByRole('link').count()).toBe(0);

    await run.getByRole('button', { name: 'Show log' }).click();
    await run.locator('pre.log').waitFor();
    expect(await run.locator('pre.log').textContent()).toContain('FAIL  features/add-gift-cards.txt');
    expect(await run.getByRole('button', { name: 'Hide log' }).getAttribute('aria-expanded')).toBe('true');

    // Failed: it can be submitted again, not cancelled nor restarted.
    expect(await page.getByRole('button', { name: 'Cancel PR' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Restart tests' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Submit again' }).isVisible()).toBe(true);
    await expectForgeLinks(page, pr, 4);
    await expectAccessible(page);
    await screenshots(page, 'pull-request-failed');
    await page.close();
  }, 150_000);

  it('shows a merged PR without Cancel or Restart, with its queue and test run linked', async () => {
    const n = await prIn([1, 2, 3, 5], 'MERGED');
    const pr = await getPr(n);
    const page = await open(n);
    await page.locator('.page-head .badge', { hasText: 'Merged' }).waitFor();
    expect(await page.locator('#pr-reason .why').textContent()).toBe(
      'Merged: its tests passed and the queue merged it.',
    );
    expect(await page.getByRole('button', { name: 'Cancel PR' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Restart tests' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Submit again' }).count()).toBe(0);
    expect(await page.locator('#no-actions').textContent()).toContain(
      `#${n} is merged: there is nothing to cancel, restart or submit again.`,
    );
    expect(await page.getByRole('main').getByRole('link', { name: 'acme/shop → main' }).getAttribute('href')).toBe(
      '#/queue/demo.greenline.local/acme/shop/main',
    );
    const run = page.locator('.run-card').first();
    expect(await run.locator('.badge').first().textContent()).toBe('Succeeded');
    expect(await run.locator('[aria-current="page"]').textContent()).toBe(`#${n}`);
    expect(await run.getByRole('link', { name: /^Test commit/ }).count()).toBe(0); // no address on a git forge
    await expectForgeLinks(page, pr, n);
    await expectAccessible(page);
    await screenshots(page, 'pull-request');
    await page.close();
  }, 150_000);

  it('shows a NOT_READY PR with Cancel but no Restart, and keeps the focus through a live update', async () => {
    // Demo PRs #6 and #11 change the same line: whichever is tested second fails on the conflict;
    // submitted again, it waits NOT_READY.
    const n = await prIn([6, 11], 'FAILED', 'START_TEST_RUN_MERGE_CONFLICT');
    await demo.api('submitPullRequest', { ...QUEUE_KEY, pr: { number: n } });
    const page = await open(n);
    await page.locator('.page-head .badge', { hasText: 'Not ready' }).waitFor();
    expect(await page.locator('.page-head .badge').getAttribute('title')).toBe('NOT_READY');
    await page
      .locator('#pr-reason')
      .getByText(/^Not ready: it conflicts with the target branch/)
      .waitFor();
    expect(await page.locator('#pr-reason .why').getAttribute('title')).toBe('CONFLICTS_WITH_TARGET');
    expect(await page.locator('#pr-waiting-on .why').getAttribute('title')).toBe('NOT_READY');
    expect(await page.getByRole('button', { name: 'Cancel PR' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Restart tests' }).count()).toBe(0);
    // The run of its first trip never reached CI, and says so.
    expect(await page.locator('.run-card').first().textContent()).toContain(
      'No CI ran: the test commit of this run was never built, so there is no log.',
    );
    await expectForgeLinks(page, await getPr(n), n);
    await expectAccessible(page);
    await screenshots(page, 'pull-request-not-ready');

    // Focus on the priority choice; a new priority set through the API shows live, and the focus stays.
    const choice = page.getByLabel('Priority');
    await choice.focus();
    await page.evaluate(() => {
      (document.activeElement as unknown as { mark: number }).mark = 7;
    });
    await demo.api('submitPullRequest', { ...QUEUE_KEY, pr: { number: n }, priority: 'high' });
    await page.locator('.facts dd', { hasText: 'high (10)' }).waitFor({ timeout: 20_000 });
    expect(await choice.inputValue()).toBe('high');
    expect(await page.evaluate(() => (document.activeElement as unknown as { mark?: number }).mark)).toBe(7);

    // Cancel, after the confirmation: the result in words, and the page shows it cancelled.
    await page.getByRole('button', { name: 'Cancel PR' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel PR' }).click();
    await page.locator('#pr-outcome', { hasText: `#${n} was cancelled: it left the queue.` }).waitFor();
    await page.locator('.page-head .badge', { hasText: 'Cancelled' }).waitFor();
    expect((await getPr(n)).state).toBe('CANCELLED');
    expect(await page.getByRole('button', { name: 'Cancel PR' }).count()).toBe(0);
    await page.close();
  }, 150_000);

  it('says why a PR has no test run yet', async () => {
    // A new PR #16 on the demo's first commit, serving on another port: it conflicts with whichever of
    // #6 and #11 merged, so it waits NOT_READY and is never tested.
    await prIn([6, 11], 'MERGED');
    const work = path.join(demo.dir, 'pr-16');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: work, encoding: 'utf8' }).trim();
    execFileSync('git', ['clone', '--quiet', path.join(demo.dir, 'shop.git'), work]);
    git('checkout', '--quiet', git('rev-list', '--max-parents=0', 'HEAD'));
    writeFileSync(path.join(work, 'settings.conf'), 'name = shop\nport = 9999\nlog = info\n');
    git(
      '-c',
      'user.name=Grace Hopper',
      '-c',
      'user.email=grace@example.test',
      'commit',
      '--quiet',
      '-am',
      'Serve on port 9999',
    );
    git('push', '--quiet', 'origin', 'HEAD:refs/pull/16/head');
    await demo.api('submitPullRequest', { ...QUEUE_KEY, pr: { number: 16 } });

    const page = await open(16);
    await page.getByRole('heading', { name: '#16 Serve on port 9999' }).waitFor();
    const none = page.locator('#no-runs');
    await none.getByText(/^No test run yet\. Not ready: it conflicts with the target branch/).waitFor();
    expect(await page.locator('.run-card').count()).toBe(0);
    await demo.api('cancelPullRequest', { ...QUEUE_KEY, pr: { number: 16 } });
    await page.locator('.page-head .badge', { hasText: 'Cancelled' }).waitFor();
    expect(await none.textContent()).toMatch(/^No test run: it left the queue before one started\. Cancelled: /);
    await page.close();
  }, 150_000);

  it('links the PR, its head commit and the test commit on the forge when the API gives their addresses', async () => {
    // The demo's plain git repository has no pages on a forge: its answers have no addresses (null, as
    // the tests above check). Here they are given addresses, as a GitHub repository's answers have.
    const n = await prIn([1, 2, 3, 5], 'MERGED');
    const pr = await getPr(n);
    const site = 'https://forge.example.test/acme/shop';
    const linked = { ...pr, prUrl: `${site}/pull/${n}`, headCommitUrl: `${site}/commit/${pr.prSha}` };
    const page = await demo.signedIn();
    await page.route('**/v1/getSubmittedPullRequest', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), ...linked } });
    });
    await page.route('**/v1/getMergeQueueTestingDetails', async (route) => {
      const response = await route.fetch();
      const details = await response.json();
      await route.fulfill({ response, json: { ...details, testCommitUrl: `${site}/commit/${details.testBranchSha}` } });
    });
    await page.goto(`${demo.url}/${PR(n)}`);
    await page.locator('.run-card').first().waitFor();
    await expectForgeLinks(page, linked, n);
    const testCommit = page
      .locator('.run-card')
      .first()
      .getByRole('link', { name: /^Test commit .* on the forge/ });
    expect(await testCommit.getAttribute('href')).toMatch(new RegExp(`^${site}/commit/[0-9a-f]{40}$`));
    await page.close();
  }, 150_000);

  it('says how to submit a PR that was never submitted, and why a submission was refused', async () => {
    const page = await open(99);
    await page.getByRole('heading', { name: '#99 is not in this queue' }).waitFor();
    expect(await page.locator('#pr-not-found').textContent()).toContain(
      'greenline pr submit 99 --repo demo.greenline.local/acme/shop --branch main',
    );
    await page.getByRole('button', { name: 'Submit #99' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
    const refused = page.locator('#pr-not-found .error');
    await refused.waitFor();
    expect(await refused.textContent()).toBe('Submit failed: Pull request #99 does not exist in acme/shop');
    expect(await refused.getAttribute('title')).toBe('PR_NOT_FOUND');
    await expectAccessible(page);
    await page.close();
  }, 60_000);
});
