/**
 * What every browser test of the dashboard shares: `useDemo()` starts the real product,
 * `node dist/cli.js demo`, as a child process on a free port with a temp data dir (real git repository,
 * built-in CI, SQLite) and a headless Debian Chromium driven by playwright-core; `signedIn` opens a page
 * signed in with the demo's token; `expectAccessible` runs axe-core on a page; `screenshots` keeps a page
 * at desktop and phone width in test-artifacts/screenshots/. Without Chromium the tests are skipped with
 * a notice, except under CI=true, where that fails.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { requireBuilt } from '../e2e/greenline-process.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');
export const QUEUE_KEY = {
  repo: { host: 'demo.greenline.local', owner: 'acme', name: 'shop' },
  targetBranch: 'main',
};
export const QUEUE = '#/queue/demo.greenline.local/acme/shop/main';
export const PR = (n: number) => `#/pr/demo.greenline.local/acme/shop/main/${n}`;
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 900 };

export const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is missing; .ci/run installs it (apt-get install -y chromium)`);
  console.warn(
    `NOTICE: ${CHROMIUM} is missing, so the dashboard's browser tests are SKIPPED. Install it with: apt-get install -y chromium`,
  );
}

/** A running demo and the browser that looks at it. */
export interface Demo {
  /** The dashboard's URL, without a trailing slash. */
  url: string;
  token: string;
  /** The demo's data directory (its remotes are `<dir>/shop.git` and `<dir>/api.git`). */
  dir: string;
  browser: Browser;
  /** Everything the demo printed, and page errors. */
  output: () => string;
  /** A new page of the given size, in a browser context of its own. */
  newPage: (size?: { width: number; height: number }) => Promise<Page>;
  /** A page of the given size, signed in (the token set in sessionStorage through the form). */
  signedIn: (size?: { width: number; height: number }) => Promise<Page>;
  /** POST /v1/<endpoint> with the token; the answer's JSON (fails the test on an error answer). */
  api: (endpoint: string, body: unknown, headers?: Record<string, string>) => Promise<unknown>;
}

/**
 * Starts the demo and Chromium before the file's tests and stops both after them. The returned object
 * is filled in by beforeAll: read its fields inside tests only.
 */
export function useDemo(): Demo {
  let child: ChildProcess | undefined;
  let output = '';
  let base = '';
  const demo: Demo = {
    url: '',
    token: '',
    dir: '',
    browser: undefined as unknown as Browser,
    output: () => output,
    // A page of its own context (closed with it): pages do not share storage or cookies.
    newPage: async (size = DESKTOP) => {
      const context = await demo.browser.newContext({ viewport: size });
      const page = await context.newPage();
      // When the browser closed first, it closed the context with it: nothing is left to close.
      page.once('close', () => context.close().catch(() => {}));
      return page;
    },
    signedIn: async (size = DESKTOP) => {
      const page = await demo.newPage(size);
      page.on('pageerror', (err) => {
        output += `\n[page error] ${err.message}`;
      });
      await page.goto(demo.url);
      await page.getByLabel('API token').fill(demo.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Queues' }).waitFor();
      return page;
    },
    api: async (endpoint, body, headers = {}) => {
      const res = await fetch(`${demo.url}/v1/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': demo.token, ...headers },
        body: JSON.stringify(body),
      }).catch((err: unknown) => {
        // The demo is gone: say how it ended and what it printed last.
        if (child?.exitCode !== null || child?.signalCode !== null)
          throw new Error(
            `the demo exited (code ${child?.exitCode}, signal ${child?.signalCode}); its output ends:\n${output.slice(-6000)}`,
          );
        throw err;
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return JSON.parse(text);
    },
  };

  async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline || child?.exitCode !== null)
        throw new Error(`no ${what} after ${timeoutMs} ms; demo output:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Takes the PRs still queued out of each of the demo's queues and waits until it deleted their test
   * branches: a stopped server keeps its runs' branches for when it starts again, and this one does not.
   */
  async function emptyQueues(): Promise<void> {
    const { queues } = (await demo.api('listQueues', {})) as { queues: { repo: unknown; targetBranch: string }[] };
    const deadline = Date.now() + 20_000;
    for (const q of queues) {
      const key = { repo: q.repo, targetBranch: q.targetBranch };
      for (;;) {
        const queue = (await demo.api('getQueue', key)) as { enqueuedPullRequests: { prNumber: number }[] };
        if (queue.enqueuedPullRequests.length === 0 || Date.now() > deadline) break;
        // Not through demo.api: a PR that concluded since getQueue answers 4xx, and a PR being merged
        // right now cannot be cancelled (400); either is gone by the next round.
        for (const { prNumber } of queue.enqueuedPullRequests)
          await fetch(`${demo.url}/v1/cancelPullRequest`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-token': demo.token },
            body: JSON.stringify({ ...key, pr: { number: prNumber } }),
          });
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const remotes = readdirSync(demo.dir).filter((name) => name.endsWith('.git'));
    const testBranches = (): string =>
      remotes
        .map((remote) =>
          execFileSync('git', ['for-each-ref', 'refs/heads/greenline-merge/'], {
            cwd: path.join(demo.dir, remote),
            encoding: 'utf8',
          }),
        )
        .join('');
    while (testBranches() !== '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }

  beforeAll(async () => {
    if (!haveChromium) return;
    requireBuilt();
    mkdirSync(SHOTS, { recursive: true });
    base = await makeTempDir('greenline-dashboard-');
    demo.dir = path.join(base, 'demo');
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));
    child = spawn(
      process.execPath,
      [path.join(ROOT, 'dist', 'cli.js'), 'demo', '--port', '0', '--data-dir', demo.dir],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      output += d.toString();
    });
    [demo.url, demo.token] = await waitFor('dashboard URL and token', 60_000, () => {
      const u = /Dashboard: (\S+?)\/?\n/.exec(output);
      const t = /API token: (\S+)\n/.exec(output);
      return u && t ? [u[1]!, t[1]!] : undefined;
    });
    demo.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 90_000);

  afterAll(async () => {
    await demo.browser?.close();
    if (child && child.exitCode === null) {
      await emptyQueues();
      child.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 20_000);
      await new Promise((r) => child?.once('exit', r));
      clearTimeout(timer);
    }
    if (base) await removeTempDir(base);
  }, 30_000);

  return demo;
}

/** axe-core's source, run in the page as a script of the test (so the page's CSP does not apply). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.1 A/AA checks on the page as it is now: zero violations, or the list of them. */
export async function expectAccessible(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(() =>
    (window as unknown as { axe: typeof import('axe-core') }).axe
      .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      .then((r) => r.violations),
  );
  const found = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  expect(found).toEqual([]);
}

/** Keeps `page` as `<name>-desktop.png` and `<name>-phone.png` (full page), and checks that the phone width needs no sideways scrolling. */
export async function screenshots(page: Page, name: string): Promise<void> {
  const size = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  await page.screenshot({ path: path.join(SHOTS, `${name}-phone.png`), fullPage: true });
  expect(widths.scroll, `${name} scrolls sideways at phone width`).toBeLessThanOrEqual(widths.client);
  await page.setViewportSize(size);
}
