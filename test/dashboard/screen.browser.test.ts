/**
 * The dashboard at a phone's width (390x844) and a desktop's (1280x800), in a real Chromium against
 * `greenline demo` (harness.ts): the queue page (its picture with four runs in flight and PRs leaving),
 * the settings page and the history page (its charts and durations). Each page is kept as a screenshot
 * at both widths in the folder the tests print, and measured: nothing sticks out of the window, the
 * breadcrumb is one line, the time-in-queue chart's ticks are whole numbers drawn inside the chart, a
 * setting's name breaks only between its words and a duration not at all.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { activityOf, concludedOf, prOf, runOf } from '../web/activity.js';
import { haveChromium, QUEUE, QUEUE_KEY, SHOTS, useDemo } from './harness.js';

const DIR = path.join(SHOTS, 'small-screen');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const SETTINGS = '#/settings/demo.greenline.local/acme/shop/main';
const HISTORY = '#/history/demo.greenline.local/acme/shop/main';

/**
 * The elements that reach outside the window sideways, except inside a box that clips or scrolls
 * them (the queue's picture scrolls in its own box).
 */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p; p = p.parentElement)
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    return [...document.querySelectorAll('body *')]
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return (
          r.width > 0 &&
          !el.matches('.skip-link, .skip-link *') &&
          (r.right > width + 0.5 || r.left < -0.5) &&
          !clipped(el)
        );
      })
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute('class') ?? ''}: ${el.textContent?.slice(0, 40)}`,
      );
  });
}

/** How many lines each item of the breadcrumb takes, and how many rows the items make. */
function breadcrumb(page: Page): Promise<{ rows: number; lines: number[] }> {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll('#crumbs li')];
    const rows = new Set(items.map((li) => Math.round(li.getBoundingClientRect().top))).size;
    const lines = items.map((li) => (li.firstElementChild as Element).getClientRects().length);
    return { rows, lines };
  });
}

/** The text nodes under `selector` that the page breaks over more than one line. */
function splitTexts(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const split: string[] = [];
    for (const el of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) split.push(node.textContent);
      }
    }
    return split;
  }, selector);
}

describe.skipIf(!haveChromium)('the dashboard on a phone and on a desktop', () => {
  const demo = useDemo();
  console.log(`Screenshots of the dashboard at both widths: ${DIR}`);

  async function open(hash: string, size: { width: number; height: number }, ready: string): Promise<Page> {
    const page = await demo.signedIn(size);
    await page.goto(`${demo.url}/${hash}`);
    await page.locator(ready).first().waitFor({ timeout: 120_000 });
    return page;
  }

  const shot = (page: Page, name: string, size: keyof typeof SIZES) =>
    page.screenshot({ path: path.join(DIR, `${name}-${size}.png`), fullPage: true });

  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: the queue's picture shows every run in flight and the PRs leaving; nothing sticks out`, async () => {
      const page = await open(QUEUE, SIZES[size], '.queue-graph .qg-target');
      // Four runs in flight one after the other and two PRs leaving, drawn by the page's own module
      // where the queue page draws its picture.
      const activity = activityOf({
        concurrency: 4,
        pullRequests: [11, 12, 13, 14].map((n) => prOf(n, 'TESTING', `r${n}`)),
        testRuns: [11, 12, 13, 14].map((n, i) => runOf(`r${n}`, [n], [11, 12, 13].slice(0, i))),
        recentPullRequests: [concludedOf(9, 'MERGED'), concludedOf(10, 'FAILED')],
      });
      const drawn = await page.evaluate(
        `Promise.all([import('/dashboard/graph.js'), import('/dashboard/ui.js')]).then(([g, ui]) => {
          const section = document.querySelector('#runs');
          section.replaceChildren();
          ui.render(ui.html\`<\${g.QueueGraph} queueKey=\${${JSON.stringify(QUEUE_KEY)}} activity=\${${JSON.stringify(activity)}} />\`, section);
          const box = section.querySelector('.qg-scroll').getBoundingClientRect();
          const inside = (r) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
          const runs = [...section.querySelectorAll('[data-run]')];
          return {
            runs: runs.map((r) => [r.getAttribute('data-run'), inside(r.getBoundingClientRect())]),
            firstStarts: runs[0].getBoundingClientRect().left < box.right - 40,
            leaving: inside(section.querySelector('.qg-leaving .qg-lane-label').getBoundingClientRect()),
          };
        })`,
      );
      await shot(page, 'queue-four-runs', size);
      await page.locator('#runs').screenshot({ path: path.join(DIR, `queue-four-runs-picture-${size}.png`) });
      const { runs, firstStarts, leaving } = drawn as {
        runs: [string, boolean][];
        firstStarts: boolean;
        leaving: boolean;
      };
      expect(leaving, 'the label "Leaving" is in view').toBe(true);
      // A desktop shows every run whole; a phone shows where the picture goes on, to scroll to.
      if (size === 'desktop') expect(runs).toEqual([11, 12, 13, 14].map((n) => [`r${n}`, true]));
      else expect(firstStarts, 'the first run starts in view').toBe(true);
      expect(await overflowing(page)).toEqual([]);
      await page.close();
    }, 150_000);

    it(`${size}: the settings page: one-line breadcrumb, names broken between words only`, async () => {
      const page = await open(SETTINGS, SIZES[size], 'label[for="setting-requiredStatusStartTimeoutMinutes"]');
      await shot(page, 'settings', size);
      await page.locator('#crumbs').screenshot({ path: path.join(DIR, `settings-breadcrumb-${size}.png`) });
      await page
        .locator('.setting', { has: page.locator('label[for="setting-requiredStatusStartTimeoutMinutes"]') })
        .screenshot({ path: path.join(DIR, `settings-start-timeout-${size}.png`) });
      expect.soft(await breadcrumb(page)).toEqual({ rows: 1, lines: [1, 1, 1] });
      expect.soft(await splitTexts(page, '.setting > label, .setting > .label')).toEqual([]);
      expect.soft(await overflowing(page)).toEqual([]);
      await page.close();
    }, 150_000);

    it(`${size}: the history page: whole-number ticks inside the chart, durations on one line`, async () => {
      const page = await open(HISTORY, SIZES[size], '#chart-time-in-queue');
      await page.locator('#history-prs tbody tr').first().waitFor({ timeout: 60_000 });
      // The demo's PRs spend seconds in the queue: the first one is shown as one that spent minutes.
      await page
        .locator('#history-prs td[data-label="Time in queue"]')
        .first()
        .evaluate((td) => {
          td.textContent = '2 min 07 s';
        });
      await shot(page, 'history', size);
      await page
        .locator('#history-prs tbody tr')
        .first()
        .screenshot({ path: path.join(DIR, `history-first-pr-${size}.png`) });
      expect.soft(await breadcrumb(page)).toEqual({ rows: 1, lines: [1, 1, 1] });
      // The chart of an hour whose PRs spent 1 min 20 s (median) and 2 min 30 s (95th percentile) in the
      // queue, drawn by the page's own module in place of the demo's.
      const hours = Array.from({ length: 6 }, (_, i) => ({
        start: new Date(Date.UTC(2026, 0, 31, 6 + i)).toISOString(),
        merged: i === 5 ? 4 : 0,
        failed: 0,
        cancelled: 0,
        ciRuns: i === 5 ? 4 : 0,
        timeInQueueP50Seconds: i === 5 ? 80 : null,
        timeInQueueP95Seconds: i === 5 ? 150 : null,
        ciRunsPerMerge: i === 5 ? 1 : null,
      }));
      const history = { hours, total: hours[5] };
      await page.evaluate(
        `Promise.all([import('/dashboard/charts.js'), import('/dashboard/ui.js')]).then(([c, ui]) => {
          const el = document.createElement('div');
          document.querySelector('#chart-time-in-queue').replaceWith(el);
          ui.render(ui.html\`<\${c.TimeInQueueChart} history=\${${JSON.stringify(history)}} />\`, el);
        })`,
      );
      await page
        .locator('#chart-time-in-queue')
        .screenshot({ path: path.join(DIR, `history-time-in-queue-${size}.png`) });
      const ticks = await page.evaluate(() => {
        const svg = document.querySelector('#chart-time-in-queue svg') as SVGSVGElement;
        const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll('.grid text')].map((t) => {
          const r = t.getBoundingClientRect();
          return { text: t.textContent ?? '', inside: r.left >= box.left && r.right <= box.right };
        });
      });
      expect(ticks.length).toBeGreaterThan(1);
      for (const tick of ticks) {
        expect.soft(tick.text).toMatch(/^\d+(s|m)?$/);
        expect.soft(tick.inside, `${tick.text} is drawn inside the chart`).toBe(true);
      }
      expect.soft(await splitTexts(page, '#history-prs td.num')).toEqual([]);
      expect.soft(await overflowing(page)).toEqual([]);
      await page.close();
    }, 200_000);
  }
});
