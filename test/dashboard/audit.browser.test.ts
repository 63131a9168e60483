/**
 * The audit log page in a real Chromium against `greenline demo` (harness.ts): reached from the
 * queues page, it lists what the API answers, newest first; the action filter, paging, a bad filter
 * refused in words, accessibility and screenshots.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, haveChromium, screenshots, useDemo } from './harness.js';

interface AuditPage {
  events: { at: string; action: string }[];
  nextCursor?: string;
}

describe.skipIf(!haveChromium)('the audit log page, on greenline demo', () => {
  const demo = useDemo();

  const actions = (page: Page) =>
    page.locator('#audit-events tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')));

  /** The audit log page, once the demo (which submits its PRs through the API) has made more than a page of entries. */
  async function open(): Promise<Page> {
    await expect
      .poll(async () => ((await demo.api('listAuditEvents', { take: 30 })) as AuditPage).events.length, {
        timeout: 60_000,
      })
      .toBe(30);
    const page = await demo.signedIn();
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await page.locator('#audit-events tbody tr').first().waitFor();
    return page;
  }

  it('is reached from the queues page and lists the entries the API answers, newest first', async () => {
    const page = await open();
    const api = (await demo.api('listAuditEvents', { take: 25 })) as AuditPage;
    const shown = await actions(page);
    // The log grows while the demo runs: the page shows a newest-first page of it.
    expect(shown).toHaveLength(25);
    const times = await page
      .locator('#audit-events tbody time')
      .evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute('datetime') ?? '')));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times.at(-1)).toBeGreaterThanOrEqual(Date.parse(api.events.at(-1)!.at) - 60_000);
    expect(await page.locator('#crumbs').textContent()).toBe('QueuesAudit log');
    await expectAccessible(page);
    await screenshots(page, 'audit');
  });

  it('pages older entries, and filters by action', async () => {
    const page = await open();
    const firstTimes = () => page.locator('#audit-events tbody time').first().getAttribute('datetime');
    const newest = await firstTimes();
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(firstTimes, { timeout: 15_000 }).not.toBe(newest);
    expect(await page.locator('nav.pager > span').textContent()).toBe('Page 2');
    // The second page is older than the first.
    expect(Date.parse((await firstTimes()) ?? '')).toBeLessThanOrEqual(Date.parse(newest ?? ''));
    await page.getByRole('button', { name: '← Newer' }).click();
    await expect.poll(() => page.locator('nav.pager > span').textContent(), { timeout: 15_000 }).toBe('Page 1');

    await page.getByLabel('Action').selectOption('queue.create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const created = (await demo.api('listAuditEvents', { action: 'queue.create' })) as AuditPage;
    expect(created.events.length).toBeGreaterThan(0);
    await expect.poll(() => actions(page), { timeout: 15_000 }).toEqual(created.events.map(() => 'queue.create'));
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(async () => (await actions(page)).length, { timeout: 15_000 }).toBe(25);
  }, 90_000);

  it('says in words what is wrong with a filter', async () => {
    const page = await open();
    await page.getByLabel('Repository').fill('acme-shop');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const error = page.locator('#audit-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^VALIDATION_FAILED: .*repo/);
    await screenshots(page, 'audit-error');
  });
});
