/**
 * The queue page in Chromium against `greenline demo` (harness.ts): each PR row with its position,
 * estimated merge, what it waits on and its latest reason in words (the code in the tooltip); links to
 * the forge only where the repository's addresses are known; focus and scroll kept through live
 * updates; the empty queue saying how to submit a PR; zero axe violations.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { QueueActivity } from '../../src/client/index.js';
import { expectAccessible, haveChromium, QUEUE, QUEUE_KEY, screenshots, useDemo } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** A second repository of the demo's organization, connected with a PR URL template. */
const STOREFRONT = 'demo.greenline.local/acme/storefront';
const STOREFRONT_KEY = {
  repo: { host: 'demo.greenline.local', owner: 'acme', name: 'storefront' },
  targetBranch: 'main',
};
const STOREFRONT_PAGE = '#/queue/demo.greenline.local/acme/storefront/main';
const TEMPLATE = 'https://forge.example.com/acme/storefront/pulls/{n}';
const PR = 4;

describe.skipIf(!haveChromium)('the queue page in Chromium, on greenline demo', () => {
  const demo = useDemo();
  const activity = async (key = QUEUE_KEY) => (await demo.api('getQueueActivity', key)) as QueueActivity;

  async function openQueue(hash = QUEUE): Promise<Page> {
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${hash}`);
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    return page;
  }

  it('shows each PR with its position, estimated merge, what it waits on and its reason in words, the code in the tooltip', async () => {
    const page = await openQueue();
    const rows = page.locator('#queue-prs tr[data-pr]');
    await rows.first().waitFor();
    // Admitted PRs are numbered from 1 in queue order.
    const positions = (await page.locator('#queue-prs td[data-label="Position"]').allTextContents())
      .filter((p) => p !== '–')
      .map(Number);
    expect(positions.length).toBeGreaterThan(0);
    expect(positions).toEqual(positions.map((_, i) => i + 1));
    // Once a run has finished, the queue estimates when its PRs merge.
    await page.locator('#queue-prs td[data-label="Estimated merge"] time').first().waitFor({ timeout: 90_000 });
    const eta = page.locator('#queue-prs td[data-label="Estimated merge"] time').first();
    expect(await eta.textContent()).toMatch(/^(in \d+ (s|min|h)|now)/);
    expect(Date.parse((await eta.getAttribute('datetime'))!)).not.toBeNaN();

    // One reading of the first row (the list is live: a row may leave between two reads).
    const first = await rows.first().evaluate((row) => {
      const waiting = row.querySelector('.waiting-on');
      const reason = row.querySelector('.why');
      return {
        pr: Number(row.getAttribute('data-pr')),
        waiting: {
          code: waiting?.getAttribute('data-code'),
          title: waiting?.getAttribute('title'),
          text: waiting?.textContent ?? '',
        },
        reason: {
          code: reason?.getAttribute('data-code'),
          title: reason?.getAttribute('title'),
          text: reason?.textContent ?? '',
        },
        href: row.querySelector('a.pr-page')?.getAttribute('href'),
      };
    });
    const api = (await activity()).pullRequests.find((p) => p.prNumber === first.pr);
    expect(first.waiting.code).toMatch(/^[A-Z_]+$/);
    expect(first.waiting.title).toBe(first.waiting.code);
    expect(first.waiting.text.length).toBeGreaterThan(first.waiting.code!.length);
    const reasonCode = first.reason.title;
    expect(reasonCode).toMatch(/^[A-Z_]+$/);
    expect(first.reason.code).toBe(reasonCode);
    const words = first.reason.text;
    expect(words).toMatch(/^[A-Z][a-z].*\./);
    expect(words).not.toContain(reasonCode);
    if (api && api.explanation.code === reasonCode) expect(words).toContain(api.explanation.message);
    // The row links to the PR's page.
    expect(first.href).toBe(`#/pr/demo.greenline.local/acme/shop/main/${first.pr}`);

    // Concluded PRs read as sentences, with the code in the tooltip.
    const recent = page.locator('#recent-prs li[data-state]').first();
    await recent.waitFor({ timeout: 90_000 });
    const recentReason = recent.locator('.why');
    expect(await recentReason.getAttribute('title')).toMatch(/^[A-Z_]+$/);
    expect(await recentReason.textContent()).toMatch(/^(Merged|Failed|Cancelled): /);
    await expectAccessible(page);
    await screenshots(page, 'queue');
    await page.close();
  }, 150_000);

  it('links no PR or commit of the demo repository to a forge: a plain git repository has no known address', async () => {
    const page = await openQueue();
    const row = page.locator('#queue-prs tr[data-pr]').first();
    await row.waitFor();
    expect(await page.locator('#queue-prs a.forge-pr, #queue-prs a.forge-commit').count()).toBe(0);
    expect(await page.locator('#recent-prs a.forge-pr, #recent-prs a.forge-commit').count()).toBe(0);
    // The head commit is still shown, as text.
    const heads = await page.locator('#queue-prs span.forge-commit').allTextContents();
    expect(heads.length).toBeGreaterThan(0);
    for (const head of heads) expect(head).toMatch(/^[0-9a-f]{8}$/);
    await page.close();
  }, 60_000);

  it("links a PR to its page on the forge through the repository's PR URL template; the empty queue says how to submit one", async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));
    execFileSync(
      process.execPath,
      [
        path.join(ROOT, 'dist', 'cli.js'),
        'repo',
        'connect',
        STOREFRONT,
        '--org',
        'default',
        '--forge',
        'git',
        '--remote',
        path.join(demo.dir, 'shop.git'),
        '--ci-command',
        'sh ./test.sh',
        '--test-branch-prefix',
        'storefront-merge',
        '--pr-url-template',
        TEMPLATE,
        '--data-dir',
        demo.dir,
      ],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    await demo.api('createQueue', STOREFRONT_KEY);
    // Paused: the PR stays queued (no test run, no test branch) while the page is looked at. PR 4
    // breaks the tests, so the demo's queue never merges it: it is still a PR to submit.
    await demo.api('updateQueue', { ...STOREFRONT_KEY, state: 'PAUSED' });
    await demo.api('submitPullRequest', { ...STOREFRONT_KEY, pr: { number: PR } });

    const page = await openQueue(STOREFRONT_PAGE);
    const row = page.locator(`#queue-prs tr[data-pr="${PR}"]`);
    await row.waitFor();
    const forgeLink = row.locator('a.forge-pr');
    expect(await forgeLink.getAttribute('href')).toBe(`https://forge.example.com/acme/storefront/pulls/${PR}`);
    expect(await forgeLink.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await forgeLink.textContent()).toBe(`on the forge (#${PR}, opens in a new tab)`);
    // A git forge has no commit address: the head is text.
    expect(await row.locator('a.forge-commit').count()).toBe(0);
    const sha = (await activity(STOREFRONT_KEY)).pullRequests[0]!.prSha;
    expect(await row.locator('.forge-commit').textContent()).toBe(sha.slice(0, 8));
    await expectAccessible(page);

    await demo.api('cancelPullRequest', { ...STOREFRONT_KEY, pr: { number: PR } });
    const recent = page.locator(`#recent-prs li[data-pr="${PR}"][data-state="CANCELLED"]`);
    await recent.waitFor();
    expect(await recent.locator('a.forge-pr').getAttribute('href')).toBe(
      `https://forge.example.com/acme/storefront/pulls/${PR}`,
    );
    const empty = page.locator('#queue-empty');
    await empty.waitFor();
    expect(await empty.textContent()).toContain(
      'greenline pr submit NUMBER --repo demo.greenline.local/acme/storefront --branch main',
    );
    await expectAccessible(page);
    await screenshots(page, 'queue-empty');
    await page.close();
  }, 60_000);

  it('lists the quarantined checks with how and why; none listed once the quarantine is lifted', async () => {
    await demo.api('updateQueue', { ...QUEUE_KEY, quarantinedStatuses: ['lint'] });
    const page = await openQueue();
    const item = page.locator('#quarantine li[data-status="lint"]');
    await item.waitFor();
    expect(await item.textContent()).toBe(
      "lint — by the queue setting: listed in the queue's quarantinedStatuses setting",
    );
    expect(await page.locator('#quarantine').textContent()).toContain('their failures do not block merges');
    await expectAccessible(page);
    await demo.api('updateQueue', { ...QUEUE_KEY, quarantinedStatuses: [] });
    await page.locator('#quarantine').waitFor({ state: 'detached' });
    await page.close();
  }, 60_000);

  it('keeps the focus on the same link and the scroll position while the page updates live', async () => {
    // Paused and without runs in flight, the queue's PRs stay where they are.
    await demo.api('updateQueue', { ...QUEUE_KEY, state: 'PAUSED' });
    await expect.poll(async () => (await activity()).testRuns.length, { timeout: 90_000 }).toBe(0);
    const last = (await activity()).pullRequests.at(-1)!;

    const page = await openQueue();
    await page.locator('.queue-state').getByText('PAUSED').waitFor();
    const row = page.locator(`#queue-prs tr[data-pr="${last.prNumber}"]`);
    const link = row.locator('a.pr-page');
    await link.focus();
    await page.evaluate(() => {
      (document.activeElement as HTMLElement & { mark?: number }).mark = 7;
      window.scrollTo(0, 300);
    });
    const before = await page.evaluate(() => window.scrollY);
    expect(before).toBeGreaterThan(0);

    // Submitted again at low priority: the row (and only its priority) changes, live.
    await demo.api('submitPullRequest', { ...QUEUE_KEY, pr: { number: last.prNumber }, priority: 'low' });
    await row.locator('td[data-label="Priority"]').getByText('low (200)').waitFor();
    const after = await page.evaluate(() => ({
      mark: (document.activeElement as HTMLElement & { mark?: number }).mark,
      pr: document.activeElement?.closest('tr')?.dataset.pr,
      scroll: window.scrollY,
    }));
    expect(after).toEqual({ mark: 7, pr: String(last.prNumber), scroll: before });
    await expectAccessible(page);
    await screenshots(page, 'queue-paused');
    // Left paused, with nothing in flight: the harness then takes the PRs still queued out of it.
    await page.close();
  }, 150_000);
});
