/**
 * The web dashboard in a real Chromium against `greenline demo` (harness.ts): sign-in, the live queue,
 * a PR's reasons, pause/resume with Terraform drift, freezes, keyboard and phone width.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { haveChromium, PR, QUEUE, QUEUE_KEY, SHOTS, useDemo } from './harness.js';

describe.skipIf(!haveChromium)('the web dashboard in Chromium, on greenline demo', () => {
  const demo = useDemo();
  const api = (endpoint: string, body: unknown) => demo.api(endpoint, body);
  const signedIn = (width = 1280, height = 900) => demo.signedIn({ width, height });

  async function apiQueueState(): Promise<string> {
    return ((await api('getQueue', QUEUE_KEY)) as { state: string }).state;
  }

  /** An updateQueue as Trunk's Terraform provider sends it (x-source: terraform), changing nothing. */
  async function terraformWrite(): Promise<void> {
    await demo.api('updateQueue', { ...QUEUE_KEY, concurrency: 3 }, { 'x-source': 'terraform' });
  }

  it('says clearly when the token is wrong, and keeps the sign-in form', async () => {
    const page = await demo.browser.newPage();
    await page.goto(demo.url);
    await page.getByLabel('API token').fill('gl_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/API token was refused \(UNAUTHORIZED\)/);
    expect(await page.getByLabel('API token').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('greenline.token'))).toBeNull();
    await page.close();
  });

  it('lists the queue, then shows PRs move to MERGED and FAILED live, without a reload', async () => {
    const page = await signedIn();
    const row = page.getByRole('row', { name: /acme\/shop → main/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('single, 3 at once');
    await page.screenshot({ path: path.join(SHOTS, 'queues.png'), fullPage: true });

    await row.getByRole('link', { name: 'acme/shop → main', exact: true }).click();
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    // A mark on the window survives only if the page is never reloaded.
    await page.evaluate(() => {
      (window as unknown as { mark: number }).mark = 42;
    });
    await page.locator('[data-run]').first().waitFor({ timeout: 60_000 });
    await page.locator('#recent-prs li[data-state="MERGED"]').first().waitFor({ timeout: 90_000 });
    await page.locator('#recent-prs li[data-state="FAILED"]').first().waitFor({ timeout: 90_000 });
    expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(42);
    expect(await page.locator('figure svg[role="img"]').count()).toBe(3);
    await page.screenshot({ path: path.join(SHOTS, 'queue.png'), fullPage: true });
    await page.close();
  }, 120_000);

  it("opens a failed PR's timeline with reasons, its test run, CI status and log", async () => {
    const page = await signedIn();
    await page.goto(`${demo.url}/${PR(4)}`);
    await page.getByRole('heading', { name: '#4 Add gift cards' }).waitFor();
    // PR 4 breaks the test: wait until the page shows it FAILED (it updates itself).
    await page.locator('#timeline').getByText('Failed', { exact: true }).first().waitFor({ timeout: 90_000 });
    // Reasons read as sentences; the code is in the tooltip.
    const timeline = await page.locator('#timeline').textContent();
    expect(timeline).toContain('Failed: a required CI status failed.');
    expect(timeline).toContain('Submitted: requested through the API');
    expect(await page.locator('#timeline [title="TEST_RUN_REQUIRED_STATUS_FAILED"]').count()).toBeGreaterThan(0);
    expect(await page.locator('#pr-reason').textContent()).toMatch(
      /^Failed: a required CI status failed\. required status "greenline\/ci" reported failure/,
    );
    expect(await page.locator('.checks').first().textContent()).toContain('greenline/ci');
    await page.getByRole('button', { name: 'Show log' }).last().click();
    await page.locator('pre.log').waitFor();
    expect(await page.locator('pre.log').textContent()).toContain('FAIL  features/add-gift-cards.txt');
    await page.screenshot({ path: path.join(SHOTS, 'pull-request.png'), fullPage: true });
    await page.close();
  }, 120_000);

  it('shows why a PR failed on a conflict (no CI ran, no log), why it waits NOT_READY once resubmitted, without a restart button', async () => {
    // Demo PRs #6 and #11 change the same line: whichever is tested second fails on the conflict.
    let failed: number | undefined;
    const deadline = Date.now() + 100_000;
    while (failed === undefined && Date.now() < deadline) {
      for (const n of [6, 11]) {
        const pr = (await api('getSubmittedPullRequest', { ...QUEUE_KEY, pr: { number: n } })) as {
          state: string;
          reason: { code: string };
        };
        if (pr.state === 'FAILED' && pr.reason.code === 'START_TEST_RUN_MERGE_CONFLICT') failed = n;
      }
      if (failed === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    expect(failed).toBeDefined();
    const page = await signedIn();
    await page.goto(`${demo.url}/${PR(failed!)}`);
    await page.locator('#pr-reason').waitFor();
    expect(await page.locator('#pr-reason').textContent()).toContain(
      'Failed: its changes conflict with the target branch or with a PR ahead of it, so no CI ran.',
    );
    expect(await page.locator('#pr-reason').textContent()).toContain('settings.conf');
    const run = page.locator('.run-card').first();
    expect(await run.textContent()).toContain(
      'No CI ran: the test commit of this run was never built, so there is no log.',
    );
    expect(await run.getByRole('button', { name: 'Show log' }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'pull-request-conflict.png'), fullPage: true });

    // Submitted again, it conflicts with main now: it waits NOT_READY, and says why.
    await api('submitPullRequest', { ...QUEUE_KEY, pr: { number: failed } });
    await page.reload();
    await page.locator('.page-head').getByText('Not ready', { exact: true }).waitFor({ timeout: 20_000 });
    await page
      .locator('#pr-reason')
      .getByText(/^Not ready: it conflicts with the target branch/)
      .waitFor({ timeout: 20_000 });
    expect(await page.locator('#pr-reason').textContent()).toContain('conflicting files: settings.conf');
    expect(await page.getByRole('button', { name: 'Cancel PR' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Restart tests' }).count()).toBe(0);
    await page.screenshot({ path: path.join(SHOTS, 'pull-request-not-ready.png'), fullPage: true });

    // The queue lists it with the same words; concluded PRs read as sentences, not lowercased codes.
    await page.goto(`${demo.url}/${QUEUE}`);
    const row = page.locator(`#queue-prs tr[data-pr="${failed}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('Not ready: it conflicts with the target branch');
    // Not admitted: no position, no estimate, and it says what it waits on.
    expect(await row.locator('td[data-label="Position"]').textContent()).toBe('–');
    expect(await row.locator('.waiting-on').getAttribute('data-code')).toBe('NOT_READY');
    expect(await row.locator('td[data-label="Estimated merge"]').textContent()).toBe('unknown');
    const recent = await page.locator('#recent-prs').textContent();
    expect(recent).toContain('Merged: its tests passed and the queue merged it.');
    expect(recent).not.toMatch(/merge graph merge/i);
    expect(await page.locator('#recent-prs [title="MERGE_GRAPH_MERGE"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'queue-not-ready.png'), fullPage: true });
    await page.close();
  }, 150_000);

  it('pauses and resumes the queue, each after a confirmation dialog that Escape dismisses; on a Terraform-managed queue that shows as drift', async () => {
    await terraformWrite();
    const page = await signedIn();
    await page.goto(`${demo.url}/${QUEUE}`);
    await page.locator('#management').getByText('Managed by Terraform.').waitFor();
    const pause = page.getByRole('button', { name: 'Pause' });
    await pause.waitFor();
    await pause.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // Focus goes back to the Pause button, or to the one a live refresh put in its place meanwhile,
    // when the dialog's close event has run.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Pause');
    // A live refresh that replaces the button while the dialog is open does not lose the focus.
    await pause.click();
    await dialog.waitFor();
    await page.evaluate(() => {
      const button = [...document.querySelectorAll('button')].find(
        (b) => b.textContent === 'Pause' && !b.closest('dialog'),
      )!;
      button.replaceWith(button.cloneNode(true));
    });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Pause');
    expect(await apiQueueState()).toBe('RUNNING');
    await page.reload(); // the clone has no click handler: start again from the page's own buttons
    await page.locator('#management').getByText('Managed by Terraform.').waitFor();

    await pause.click();
    expect(await dialog.textContent()).toContain('this counts as a change outside Terraform');
    await dialog.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.queue-state').getByText('Paused', { exact: true }).waitFor();
    expect(await apiQueueState()).toBe('PAUSED');
    await page.locator('#management').getByText('Changed outside Terraform since').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'queue-paused.png') });

    await page.getByRole('button', { name: 'Resume' }).click();
    await dialog.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.queue-state').getByText('Running', { exact: true }).waitFor();
    expect(await apiQueueState()).toBe('RUNNING');
    await terraformWrite();
    await page.locator('#management').getByText('Managed by Terraform.').waitFor();
    await page.close();
  }, 60_000);

  it('shows a freeze with its reason and end while the queue is frozen, else the next freeze', async () => {
    const page = await signedIn();
    await page.goto(`${demo.url}/${QUEUE}`);
    await page.locator('.queue-state').getByText('Running', { exact: true }).waitFor();
    expect(await page.locator('#freeze').count()).toBe(0);
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    await api('updateQueue', {
      ...QUEUE_KEY,
      freezes: { oneOff: [{ from: iso(now + 86_400_000), until: iso(now + 90_000_000), reason: 'audit' }] },
    });
    await page.locator('#freeze').getByText('Next freeze:').waitFor();
    expect(await page.locator('#freeze').textContent()).toContain('(audit)');
    await api('updateQueue', {
      ...QUEUE_KEY,
      freezes: { oneOff: [{ from: iso(now - 1_000), until: iso(now + 3_600_000), reason: 'release 2.4' }] },
    });
    const banner = page.locator('#freeze.banner.frozen');
    await banner.getByText('Frozen until').waitFor();
    expect(await banner.textContent()).toContain(': release 2.4.');
    expect(await banner.locator('time').getAttribute('datetime')).toBe(iso(now + 3_600_000));
    await page.screenshot({ path: path.join(SHOTS, 'queue-frozen.png') });
    await api('updateQueue', { ...QUEUE_KEY, freezes: null });
    await page.locator('#freeze').waitFor({ state: 'detached' });
    await page.close();
  }, 60_000);

  it('shows the testing timeout in force and the CI retries of the queue', async () => {
    const page = await signedIn();
    await page.goto(`${demo.url}/${QUEUE}`);
    const settings = page.locator('#ci-settings');
    await settings.getByText('testing timeout 300 min').waitFor();
    expect(await settings.textContent()).not.toMatch(/auto|retried/);
    await api('updateQueue', { ...QUEUE_KEY, testingTimeoutMinutes: 'auto', ciRetries: 2 });
    await settings.getByText('failed runs retried up to 2×').waitFor();
    expect(await settings.textContent()).toMatch(/testing timeout \d+ min \(auto, from recent runs\)/);
    await api('updateQueue', { ...QUEUE_KEY, testingTimeoutMinutes: 300, ciRetries: 0 });
    await terraformWrite();
    await page.close();
  }, 60_000);

  it('works by keyboard: focus moves to the content, Tab to a queue, Enter opens it, focus is visible', async () => {
    const page = await signedIn();
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    let reached = false;
    for (let i = 0; i < 10 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = (await focused()).includes('acme/shop → main');
    }
    expect(reached).toBe(true);
    // Backwards: the header's controls, then the skip link at the very top.
    let top = false;
    for (let i = 0; i < 8 && !top; i++) {
      await page.keyboard.press('Shift+Tab');
      top = (await focused()) === 'Skip to content';
    }
    expect(top).toBe(true);
    for (let i = 0; i < 10 && !(await focused()).includes('acme/shop → main'); i++) await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).toBe('solid');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    expect(page.url()).toContain(QUEUE);
    await page.close();
  }, 60_000);

  it('fits a phone-width screen without sideways scrolling', async () => {
    const page = await signedIn(390, 844);
    await page.goto(`${demo.url}/${QUEUE}`);
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    await page.locator('#queue-prs, #prs p').first().waitFor();
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(await page.getByRole('button', { name: 'Pause' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'queue-phone.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
