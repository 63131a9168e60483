/**
 * The history page in a real Chromium against `greenline demo` (harness.ts): every concluded PR newest
 * first with links, each filter, paging, a filtered address that reloads to the same view, the empty
 * states, the charts with their tables beside them, accessibility and screenshots. The hours a chart
 * draws and its title's range are tested in Node (test/web/charts.test.ts).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, haveChromium, PHONE, PR, QUEUE_KEY, screenshots, useDemo } from './harness.js';

const HISTORY = '#/history/demo.greenline.local/acme/shop/main';
/** The demo's PRs that end FAILED: three break the test, #11 conflicts with #6. */
const FAILED = [4, 9, 11, 13];

interface Concluded {
  pullRequests: { prNumber: number; concludedAt: string }[];
  total: number;
}

describe.skipIf(!haveChromium)('the history page, on greenline demo', () => {
  const demo = useDemo();
  let newestFirst: number[] = [];

  /** Waits (polling the API) until the demo's 15 PRs concluded; their numbers, newest first. */
  async function allConcluded(): Promise<number[]> {
    if (newestFirst.length === 15) return newestFirst;
    const deadline = Date.now() + 180_000;
    for (;;) {
      const page = (await demo.api('listConcludedPullRequests', { ...QUEUE_KEY, take: 100 })) as Concluded;
      if (page.total === 15) {
        newestFirst = page.pullRequests.map((p) => p.prNumber);
        return newestFirst;
      }
      if (Date.now() > deadline) throw new Error(`only ${page.total} of 15 PRs concluded:\n${demo.output()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  async function open(query = ''): Promise<Page> {
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${HISTORY}${query}`);
    await page.getByRole('heading', { name: 'History of acme/shop → main' }).waitFor();
    return page;
  }

  /** Waits until the table lists `expected`, newest first (it changes when an answer arrives). */
  async function expectRows(page: Page, expected: number[]): Promise<void> {
    const listed = () =>
      page.locator('#history-prs tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-pr'))));
    await expect.poll(listed, { timeout: 15_000 }).toEqual(expected);
    if (expected.length === 0) await page.locator('#history-empty').waitFor();
  }

  const hashQuery = (page: Page) => page.evaluate(() => location.hash.split('?')[1] ?? '');
  const param = async (page: Page, name: string) =>
    page.evaluate((n) => new URLSearchParams(location.hash.split('?')[1] ?? '').get(n), name);

  it('is reached from the queue page and lists every concluded PR newest first, each linking to its page', async () => {
    const order = await allConcluded();
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/#/queue/demo.greenline.local/acme/shop/main`);
    await page.getByRole('link', { name: /History: every concluded PR/ }).click();
    await page.getByRole('heading', { name: 'History of acme/shop → main' }).waitFor();
    await expectRows(page, order);
    const times = await page
      .locator('#history-prs tbody time')
      .evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute('datetime') ?? '')));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(await page.locator('#history-count').textContent()).toBe('Showing 1–15 of 15, newest first.');
    const failed = page.locator('#history-prs tr[data-pr="4"]');
    expect(await failed.getByRole('link').getAttribute('href')).toBe(PR(4));
    expect(await failed.locator('.why').textContent()).toMatch(/^Failed: a required CI status failed\./);
    expect(await failed.locator('.why').getAttribute('title')).toBe('TEST_RUN_REQUIRED_STATUS_FAILED');
    expect(await page.locator('#history-prs tr[data-pr="11"] .why').getAttribute('title')).toBe(
      'START_TEST_RUN_MERGE_CONFLICT',
    );
    await failed.getByRole('link').click();
    await page.getByRole('heading', { name: '#4 Add gift cards' }).waitFor();
    await page.close();
  }, 240_000);

  it('narrows the list by state, number, title, author and date; the filtered address reloads to the same view', async () => {
    const order = await allConcluded();
    const page = await open();
    await expectRows(page, order);

    await page.getByLabel('State').selectOption('FAILED');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(
      page,
      order.filter((n) => FAILED.includes(n)),
    );
    expect(await param(page, 'state')).toBe('FAILED');
    await page.reload();
    await expectRows(
      page,
      order.filter((n) => FAILED.includes(n)),
    );
    expect(await page.getByLabel('State').inputValue()).toBe('FAILED');
    expect(await page.locator('#history-count').textContent()).toBe(
      'Showing 1–4 of 4 matching the filters, newest first.',
    );

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expectRows(page, order);
    expect(await hashQuery(page)).toBe('');

    await page.getByLabel('Title or number').fill('#13');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, [13]);
    await page.getByLabel('Title or number').fill('GIFT');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, [4]);

    // The demo's authors take turns: Grace Hopper wrote #2, #7 and #12.
    await page.getByLabel('Title or number').fill('');
    await page.getByLabel('Author').fill('grace hopper');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(
      page,
      order.filter((n) => [2, 7, 12].includes(n)),
    );
    expect(await page.locator('#history-prs tbody .block').first().textContent()).toBe('by Grace Hopper');

    // Everything concluded today (the browser's day); nothing from tomorrow on.
    const [today, tomorrow] = await page.evaluate(() => {
      const day = (d: Date) =>
        `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
      return [day(new Date()), day(new Date(Date.now() + 86_400_000))];
    });
    await page.getByLabel('Author').fill('');
    await page.getByLabel('Concluded from').fill(today);
    await page.getByLabel('Concluded to').fill(today);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, order);
    expect(await param(page, 'from')).toBe(today);
    await page.getByLabel('Concluded from').fill(tomorrow);
    await page.getByLabel('Concluded to').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, []);
    expect(await page.locator('#history-empty').textContent()).toMatch(/Nothing matches these filters: Clear them/);
    await page.reload();
    await expectRows(page, []);
    expect(await page.getByLabel('Concluded from').inputValue()).toBe(tomorrow);
    await expectAccessible(page);
    await screenshots(page, 'history-no-match');
    await page.locator('#history-empty').getByRole('button', { name: 'Clear them' }).click();
    await expectRows(page, order);

    // A date range the wrong way round is refused by the API, in words.
    await page.getByLabel('Concluded from').fill(tomorrow);
    await page.getByLabel('Concluded to').fill(today);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#history-error').waitFor();
    expect(await page.locator('#history-error').textContent()).toMatch(/from is after to: swap them/);
    await page.close();
  }, 240_000);

  it('pages through the list with a small page size, and the page survives a reload', async () => {
    const order = await allConcluded();
    const page = await open();
    await expectRows(page, order);
    await page.getByLabel('Rows per page').selectOption('10');
    await expectRows(page, order.slice(0, 10));
    expect(await page.getByRole('button', { name: '← Newer' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Older →' }).click();
    await expectRows(page, order.slice(10));
    expect(await page.locator('#history-count').textContent()).toBe('Showing 11–15 of 15, newest first.');
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.reload();
    await expectRows(page, order.slice(10));
    expect(await page.getByLabel('Rows per page').inputValue()).toBe('10');
    await page.getByRole('button', { name: '← Newer' }).click();
    await expectRows(page, order.slice(0, 10));
    await page.close();
  }, 240_000);

  it('says how to get a history on a queue where nothing concluded', async () => {
    // Every test lets the demo's queue finish: PRs being merged at the end could not be cancelled.
    await allConcluded();
    // A queue is created only for a branch the repository has.
    execFileSync('git', ['update-ref', 'refs/heads/release', 'refs/heads/main'], {
      cwd: path.join(demo.dir, 'shop.git'),
    });
    await demo.api('createQueue', { ...QUEUE_KEY, targetBranch: 'release' });
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/#/history/demo.greenline.local/acme/shop/release`);
    await page.locator('#history-empty').waitFor();
    expect(await page.locator('#history-empty').textContent()).toMatch(
      /^No PR has concluded yet: submit one with greenline pr submit NUMBER --repo demo.greenline.local\/acme\/shop --branch release/,
    );
    expect(await page.getByRole('button', { name: 'Clear filters' }).isDisabled()).toBe(true);
    // No empty charts: a sentence says when they appear.
    await page.locator('#charts-empty').waitFor();
    expect(await page.locator('#charts-empty').textContent()).toMatch(/^Nothing concluded in the last 24 hours: /);
    expect(await page.locator('figure').count()).toBe(0);
    await expectAccessible(page);
    await screenshots(page, 'history-empty');
    await page.close();
  }, 120_000);

  it('draws each chart over the hours that had conclusions, with its data table beside it', async () => {
    await allConcluded();
    const page = await open();
    await page.locator('#chart-conclusions svg[role="img"]').waitFor();
    const total = ((await demo.api('getQueueHistory', { ...QUEUE_KEY, hours: 24 })) as { total: { merged: number } })
      .total;
    // A new install: every conclusion in the current hour (or two), so the charts draw 6 hours.
    for (const id of ['chart-conclusions', 'chart-time-in-queue', 'chart-runs-per-merge']) {
      expect(await page.locator(`#${id} figcaption`).textContent()).toMatch(/, the last 6 hours$/);
      const svg = await page.locator(`#${id} svg`).boundingBox();
      const table = await page.locator(`#${id} .chart-data`).boundingBox();
      expect(await page.locator(`#${id} .chart-data`).isVisible()).toBe(true);
      // Beside the chart on a laptop...
      expect(table!.x).toBeGreaterThanOrEqual(svg!.x + svg!.width);
      expect(table!.y).toBeLessThan(svg!.y + svg!.height);
    }
    const conclusions = page.locator('#chart-conclusions .chart-data');
    expect(await conclusions.locator('thead th').allTextContents()).toEqual(['Hour', 'Merged', 'Failed', 'Cancelled']);
    expect(await conclusions.locator('tfoot td').allTextContents()).toEqual([String(total.merged), '4', '0']);
    expect(await page.locator('#chart-conclusions rect.bar.failed').count()).toBeGreaterThan(0);

    await page.getByLabel('7 days').check();
    expect(await param(page, 'range')).toBe('7d');
    await page.reload();
    await page.locator('#chart-conclusions svg[role="img"]').waitFor();
    expect(await page.getByLabel('7 days').isChecked()).toBe(true);
    await expectAccessible(page);
    await screenshots(page, 'history');

    // ...and under it on a phone.
    await page.setViewportSize(PHONE);
    const svg = await page.locator('#chart-conclusions svg').boundingBox();
    const table = await page.locator('#chart-conclusions .chart-data').boundingBox();
    expect(table!.y).toBeGreaterThanOrEqual(svg!.y + svg!.height);
    await page.close();
  }, 240_000);
});
