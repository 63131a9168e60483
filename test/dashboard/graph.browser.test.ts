/**
 * The queue graph (web/graph.js) in a real Chromium against `greenline demo` (harness.ts): the
 * parallel queue acme/api first (batches in lanes, a failing batch bisected, a PR not ready), while
 * its batches are in flight; then the single queue acme/shop (the target's tip, runs and PR links, a
 * merged PR leaving instead of staying under a run, focus kept across live updates, Enter on a PR),
 * and a hand-made activity drawn by the page's own module. The picture's data, words and layout are
 * tested in Node (test/web/graph.test.ts).
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activityOf, prOf, runOf } from '../web/activity.js';
import { expectAccessible, haveChromium, PR, QUEUE, screenshots, useDemo } from './harness.js';

const API_QUEUE = '#/queue/demo.greenline.local/acme/api/main';
const graph = (page: Page) => page.locator('.queue-graph');
/** A run of the picture read at once (live updates change it): its label, classes and PRs. */
const runInfo = (run: Locator) =>
  run.evaluate((el) => ({
    id: el.getAttribute('data-run') ?? '',
    label: el.getAttribute('aria-label') ?? '',
    cls: el.getAttribute('class') ?? '',
    prs: [...el.querySelectorAll('[data-pr]')].map((e) => Number(e.getAttribute('data-pr'))),
  }));

describe.skipIf(!haveChromium)('the queue graph, on greenline demo', () => {
  const demo = useDemo();

  async function open(hash: string): Promise<Page> {
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${hash}`);
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
    await graph(page).locator('.qg-target').waitFor();
    return page;
  }

  it('draws the parallel queue: lanes side by side, batches in one box, a bisection run marked, the PR not ready apart', async () => {
    const page = await open(API_QUEUE);
    // Each area of acme/api is a lane; each lane's three PRs are tested as one batch.
    await expect.poll(() => graph(page).locator('[data-lane]').count(), { timeout: 30_000 }).toBeGreaterThan(1);
    const batch = graph(page).locator('[data-run][data-queue-type="main"].batch').first();
    await batch.waitFor({ timeout: 30_000 });
    const batched = await runInfo(batch);
    expect(batched.prs.length, batched.label).toBeGreaterThan(1);
    expect(batched.label).toMatch(/^Batch of \d, run [0-9a-f]{8}: (testing|building)/);
    // #10 has no impacted targets: it is not ready, drawn apart from the lanes.
    const notReady = graph(page)
      .locator('.qg-not-ready')
      .getByRole('link', { name: '#10 Document the webhooks, not ready' });
    await notReady.waitFor({ timeout: 30_000 });
    expect(await notReady.getAttribute('data-pr')).toBe('10');

    // #2 breaks the test: the billing batch (#1-#3) fails and is bisected.
    const bisection = graph(page).locator('[data-run][data-queue-type="bisection"]').first();
    await bisection.waitFor({ timeout: 60_000 });
    const bisecting = await runInfo(bisection);
    expect(bisecting.cls).toContain('bisection');
    expect(bisecting.label).toMatch(/^Bisection.*bisection of a failed batch/);
    expect(bisecting.prs.length).toBeGreaterThan(0);
    expect(
      bisecting.prs.every((n) => [1, 2, 3].includes(n)),
      bisecting.label,
    ).toBe(true);
    await screenshots(page, 'queue-graph-parallel');
    await expectAccessible(page);
    await page.close();
  }, 120_000);

  it('draws the target tip, each run with its PRs, each PR a link to its page', async () => {
    const page = await open(QUEUE);
    const target = await graph(page)
      .locator('.qg-target')
      .evaluate((el) => ({ sha: el.getAttribute('data-target') ?? '', text: el.textContent }));
    expect(target.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(target.text).toContain(`main${target.sha.slice(0, 8)}`);
    const run = graph(page).locator('[data-run]').first();
    await run.waitFor({ timeout: 30_000 });
    const drawn = await runInfo(run);
    expect(drawn.id).toMatch(/^[0-9a-f-]{8,}$/);
    expect(drawn.label).toMatch(/^(Run [0-9a-f]{8}|Batch of \d, run [0-9a-f]{8}): (testing|building)/);
    expect(drawn.label).toContain(drawn.id.slice(0, 8));
    // A PR of the run, read at once (live updates move PRs on): a link to its page, named by its
    // <title> (also its tooltip): number, title, state.
    const pr = await run
      .locator('[data-pr]')
      .first()
      .evaluate((el) => ({
        n: el.getAttribute('data-pr'),
        href: el.getAttribute('href'),
        name: el.querySelector('title')?.textContent ?? '',
      }));
    expect(pr.href).toBe(PR(Number(pr.n)));
    expect(pr.name).toMatch(new RegExp(`^#${pr.n} .+, (testing|building)$`));
    // The browser's accessible name is that title: the link is found by it (while the PR is in the picture).
    const named = graph(page).getByRole('link', { name: new RegExp(`^#${pr.n} `) });
    expect(await named.evaluateAll((els) => els.map((e) => e.getAttribute('data-pr')))).toEqual([pr.n]);
    await screenshots(page, 'queue-graph');
    await expectAccessible(page);
    await page.close();
  }, 60_000);

  it('shows a PR that merged leaving, not pending under the run built on it', async () => {
    const page = await open(QUEUE);
    // A run built on PRs that merged while it tested says so; those PRs are drawn leaving, not under it.
    const seen = await page.waitForFunction(
      () => {
        const root = document.querySelector('.queue-graph');
        const run = [...(root?.querySelectorAll('[data-run]') ?? [])].find((r) =>
          r.getAttribute('aria-label')?.includes('merged since'),
        );
        if (!root || !run) return null;
        const label = run.getAttribute('aria-label') ?? '';
        const merged = [...(/built on ([#\d, ]+), merged since/.exec(label)?.[1] ?? '').matchAll(/#(\d+)/g)].map((m) =>
          Number(m[1]),
        );
        const numbers = (selector: string) =>
          [...root.querySelectorAll(selector)].map((e) => Number(e.getAttribute('data-pr')));
        return {
          label,
          merged,
          inLanes: numbers('.qg-lane [data-pr]'),
          leavingMerged: numbers('.qg-leaving [data-pr][data-state="MERGED"]'),
        };
      },
      undefined,
      { timeout: 90_000, polling: 50 },
    );
    const { label, merged, inLanes, leavingMerged } = (await seen.jsonValue())!;
    expect(merged.length, label).toBeGreaterThan(0);
    expect(
      inLanes.filter((n) => merged.includes(n)),
      label,
    ).toEqual([]);
    expect(
      merged.some((n) => leavingMerged.includes(n)),
      `${label}; leaving: ${leavingMerged}`,
    ).toBe(true);
    await page.close();
  }, 120_000);

  it('draws a run still building its test commit as a run, not among the PRs waiting behind', async () => {
    const page = await open(QUEUE);
    // #9's run is being created (its PR is still PENDING): it is a run at the back of the lane; #10 waits.
    const activity = activityOf({
      pullRequests: [prOf(8, 'TESTING', 'r8'), prOf(9, 'PENDING', 'r9'), prOf(10, 'PENDING')],
      testRuns: [runOf('r8', [8], []), runOf('r9', [9], [8], 'creating')],
    });
    const key = { repo: { host: 'demo.greenline.local', owner: 'acme', name: 'shop' }, targetBranch: 'main' };
    const drawn = await page.evaluate<{ runs: string[]; waiting: string[] }>(
      `Promise.all([import('/dashboard/graph.js'), import('/dashboard/ui.js')]).then(([g, ui]) => {
        const el = document.createElement('div');
        document.body.append(el);
        ui.render(ui.html\`<\${g.QueueGraph} queueKey=\${${JSON.stringify(key)}} activity=\${${JSON.stringify(activity)}} />\`, el);
        return {
          runs: [...el.querySelectorAll('[data-run]')].map((n) => n.getAttribute('data-run')),
          waiting: [...el.querySelectorAll('.qg-waiting-block [data-pr]')].map((n) => n.getAttribute('data-pr')),
        };
      })`,
    );
    expect(drawn.runs).toEqual(['r8', 'r9']);
    expect(drawn.waiting).toEqual(['10']);
    await page.close();
  }, 60_000);

  it('keeps focus on a PR across live updates, and Enter opens its page', async () => {
    const page = await open(QUEUE);
    const prs = graph(page).locator('.qg-lane [data-pr]');
    await prs.first().waitFor({ timeout: 30_000 });
    // Tab goes from PR to PR in queue order (the document's order of the picture's links).
    const first = await prs.first().getAttribute('data-pr');
    await graph(page).locator(`.qg-lane [data-pr="${first}"]`).focus();
    await page.keyboard.press('Tab');
    const next = await page.evaluate((pr) => {
      const links = [...document.querySelectorAll('.qg-lane [data-pr]')];
      const at = links.findIndex((e) => e.getAttribute('data-pr') === pr);
      return {
        expected: links[at + 1]?.getAttribute('data-pr'),
        focused: document.activeElement?.getAttribute('data-pr'),
      };
    }, first);
    expect(next.focused).toBeTruthy();
    expect(next.focused).toBe(next.expected);
    // The PR furthest back: it stays in the queue while the picture changes around it.
    const n = await prs.last().getAttribute('data-pr');
    const node = graph(page).locator(`[data-pr="${n}"]`);
    // Reached by keyboard (the focus ring shows for keyboard focus).
    await node.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-pr'))).toBe(n);
    const summary = page.locator('#qg-summary');
    const before = await summary.textContent();
    await expect.poll(() => summary.textContent(), { timeout: 60_000 }).not.toBe(before);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-pr'))).toBe(n);
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement!.querySelector('.qg-ring')!).stroke);
    expect(ring).not.toBe('none');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: new RegExp(`^#${n} `) }).waitFor();
    expect(page.url()).toContain(PR(Number(n)));
    await page.close();
  }, 90_000);
});
