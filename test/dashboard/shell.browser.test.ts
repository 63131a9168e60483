/**
 * The dashboard's shell in Chromium (harness.ts): sign-in with a good and a bad token, sign-out, the
 * queues page with each queue's links, breadcrumbs, the not-found page, keyboard use, accessibility
 * and screenshots, the list following changes live; on a `greenline serve` without queues, the empty
 * state, whose steps create a queue, and a server that stopped.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { expectAccessible, haveChromium, PR, QUEUE, QUEUE_KEY, screenshots, useDemo } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SETTINGS = '#/settings/demo.greenline.local/acme/shop/main';
const HISTORY = '#/history/demo.greenline.local/acme/shop/main';

describe.skipIf(!haveChromium)('the dashboard shell in Chromium', () => {
  const demo = useDemo();
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent ?? '');
  const crumbs = (page: Page) =>
    page.locator('#crumbs li').evaluateAll((items) => items.map((li) => li.textContent?.trim()));

  it('refuses a wrong token in words, keeps the form, and signs in with the right one; focus moves to the content', async () => {
    const page = await demo.newPage();
    await page.goto(demo.url);
    const input = page.getByLabel('API token');
    await input.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await expectAccessible(page);
    await screenshots(page, 'sign-in');

    await input.fill('gl_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /The API token was refused \(UNAUTHORIZED\): .*Check that you copied the whole token.*greenline token create --org ORG/,
    );
    expect(await input.isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('greenline.token'))).toBeNull();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshots(page, 'sign-in-refused');

    await input.fill(demo.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Queues', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(await page.evaluate(() => sessionStorage.getItem('greenline.token'))).toBe(demo.token);
    // The page sets its title once it has rendered, a moment after its heading shows.
    await page.waitForFunction(() => document.title === 'Queues · greenline', undefined, { timeout: 5_000 });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('status').getByText('Signed out.').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('greenline.token'))).toBeNull();
    expect(await page.getByRole('navigation', { name: 'Breadcrumb' }).count()).toBe(0);
    await page.close();
  }, 60_000);

  it('lists the demo queue with links to its queue, settings and history pages, and breadcrumbs on every page', async () => {
    const page = await demo.signedIn();
    const row = page.getByRole('row', { name: /acme\/shop → main/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('single, 3 at once');
    expect(await row.textContent()).toContain('demo.greenline.local');
    const hrefs = await row.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual([QUEUE, SETTINGS, HISTORY]);
    expect(await row.getByRole('link', { name: 'Settings of acme/shop → main' }).getAttribute('href')).toBe(SETTINGS);
    expect(await row.getByRole('link', { name: 'History of acme/shop → main' }).getAttribute('href')).toBe(HISTORY);
    // The list follows changes by itself, without a reload and without losing the focus.
    await page.evaluate(() => {
      (window as unknown as { mark: number }).mark = 42;
    });
    const settings = row.getByRole('link', { name: 'Settings of acme/shop → main' });
    await settings.focus();
    await demo.api('updateQueue', { ...QUEUE_KEY, concurrency: 2 });
    await row.getByText('single, 2 at once').waitFor();
    expect(await focused(page)).toBe('Settings of acme/shop → main');
    expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(42);
    await demo.api('updateQueue', { ...QUEUE_KEY, concurrency: 3 });
    await row.getByText('single, 3 at once').waitFor();
    expect(await crumbs(page)).toEqual(['Queues']);
    expect(await page.locator('#crumbs [aria-current="page"]').textContent()).toBe('Queues');
    await expectAccessible(page);
    await screenshots(page, 'queues');

    await page.goto(`${demo.url}/${PR(4)}`);
    await page.getByRole('heading', { name: /^#4 / }).waitFor();
    expect(await crumbs(page)).toEqual(['Queues', 'acme/shop → main', '#4']);
    expect(await page.locator('#crumbs a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).toEqual([
      '#/',
      QUEUE,
    ]);
    expect(await page.title()).toMatch(/^#4 .* · greenline$/);
    await page.locator('#crumbs').getByRole('link', { name: 'acme/shop → main' }).click();
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    expect(await crumbs(page)).toEqual(['Queues', 'acme/shop → main']);
    expect(await page.locator('#crumbs [aria-current="page"]').textContent()).toBe('acme/shop → main');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.close();
  }, 60_000);

  it('answers an unknown address with a not-found page that lists the addresses and links home, and a missing queue with the reason', async () => {
    const page = await demo.signedIn();
    for (const hash of [
      '#/nowhere',
      '#/pr/demo.greenline.local/acme/shop/main/not-a-number',
      '#/queue/only/three/parts',
    ]) {
      await page.goto(`${demo.url}/${hash}`);
      const heading = page.getByRole('heading', { name: 'Page not found' });
      await heading.waitFor();
      expect(await page.locator('main').textContent()).toContain(`no page at ${hash}`);
      expect(await page.locator('main').textContent()).toContain('#/queue/HOST/OWNER/NAME/BRANCH');
    }
    expect(await page.title()).toBe('Page not found · greenline');
    await expectAccessible(page);
    await screenshots(page, 'not-found');
    await page.getByRole('link', { name: 'Go to the list of queues' }).click();
    await page.getByRole('heading', { name: 'Queues', level: 1 }).waitFor();
    expect(page.url()).toMatch(/#\/$/);

    // A well-formed address of a queue that does not exist: the API's answer, and the way back.
    await page.goto(`${demo.url}/#/queue/demo.greenline.local/acme/shop/no-such-branch`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(
      'QUEUE_NOT_FOUND: No merge queue exists for branch "no-such-branch" in this repository',
    );
    expect(await page.getByRole('heading', { name: 'Not found' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Back to the queues' }).getAttribute('href')).toBe('#/');
    expect(await crumbs(page)).toEqual(['Queues', 'acme/shop → no-such-branch']);
    await page.close();
  }, 60_000);

  it('works by keyboard: Tab reaches the queue, settings and history links in order with a visible focus ring, Enter follows, the skip link focuses the content', async () => {
    const page = await demo.signedIn();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    const reached: string[] = [];
    for (let i = 0; i < 15 && reached.length < 3; i++) {
      await page.keyboard.press('Tab');
      const text = await focused(page);
      if (/acme\/shop → main/.test(text)) {
        reached.push(text);
        expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
      }
    }
    expect(reached).toEqual(['acme/shop → main', 'Settings of acme/shop → main', 'History of acme/shop → main']);

    // Back to the queue's link, then Enter follows it and the focus is on the new page's content.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('acme/shop → main');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    expect(page.url()).toContain(QUEUE);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');

    // Backwards: the header's sign-out, the crumbs' link (the queue's crumb is the current page, not a
    // link) and the brand, then the skip link at the very top; it moves
    // the focus to the content without changing the page.
    const stops: string[] = [];
    for (let i = 0; i < 8 && stops.at(-1) !== 'Skip to content'; i++) {
      await page.keyboard.press('Shift+Tab');
      stops.push(await focused(page));
    }
    expect(stops).toEqual(['Sign out', 'Queues', 'greenline', 'Skip to content']);
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(page.url()).toContain(QUEUE);
    await page.close();
  }, 60_000);

  describe('on a server without queues', () => {
    let child: ChildProcess | undefined;
    let dir = '';
    afterAll(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      if (dir) await removeTempDir(dir);
    });

    const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));

    /** `greenline serve` on a new data dir: its address and the bootstrap token it prints. */
    async function serve(): Promise<{ url: string; token: string }> {
      dir = await makeTempDir('greenline-shell-');
      child = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'serve', '--port', '0', '--data-dir', dir], {
        cwd: ROOT,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
      });
      child.stderr!.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const deadline = Date.now() + 30_000;
      while (!/listening on (\S+)/.test(out) || !/^Token: (gl_\S+)$/m.test(out)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return { url: /listening on (\S+)/.exec(out)![1]!, token: /^Token: (gl_\S+)$/m.exec(out)![1]! };
    }

    it('says how to connect a repository and create a queue, shows the queue those steps create without a reload, then that the server cannot be reached once it stopped', async () => {
      const server = await serve();
      const page = await demo.newPage();
      await page.goto(server.url);
      await page.getByLabel('API token').fill(server.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const empty = page.getByRole('region', { name: 'No queues yet' });
      await empty.waitFor();
      const text = await empty.textContent();
      expect(text).toContain('npx greenline repo connect github.com/acme/web --org default --forge git');
      expect(text).toContain(`curl -s ${server.url}/v1/createQueue -H "x-api-token: $TOKEN"`);
      expect(text).toContain('"targetBranch":"main"');
      expect(text).toContain('npx greenline demo');
      expect(await page.getByRole('table').count()).toBe(0);
      await expectAccessible(page);
      await screenshots(page, 'queues-empty');

      // The steps as the page words them, with a real remote and this server's data dir, create a
      // queue, and the page shows it without a reload.
      await page.evaluate(() => {
        (window as unknown as { mark: number }).mark = 42;
      });
      // A repository with a main branch (a queue is refused on a branch that does not exist).
      const remote = path.join(dir, 'web.git');
      const work = path.join(dir, 'web');
      execFileSync('git', ['init', '--bare', '--quiet', remote]);
      execFileSync('git', ['init', '--quiet', '-b', 'main', work]);
      execFileSync(
        'git',
        [
          '-c',
          'user.name=Ada',
          '-c',
          'user.email=ada@example.com',
          'commit',
          '--quiet',
          '--allow-empty',
          '-m',
          'start',
        ],
        { cwd: work },
      );
      execFileSync('git', ['push', '--quiet', remote, 'main'], { cwd: work });
      const [connect, create] = await empty.locator('pre').allTextContents();
      const cli = `${process.execPath} ${path.join(ROOT, 'dist', 'cli.js')}`;
      execFileSync(
        'sh',
        ['-c', `${connect!.replace('npx greenline', cli).replace('/srv/git/web.git', remote)} --data-dir ${dir}`],
        { env: cleanEnv() },
      );
      expect(
        execFileSync('sh', ['-c', create!], { env: { ...cleanEnv(), TOKEN: server.token }, encoding: 'utf8' }),
      ).toBe('{}');
      const row = page.getByRole('row', { name: /acme\/web → main/ });
      await row.waitFor();
      expect(await row.textContent()).toContain('single, 3 at once');
      expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(42);
      await screenshots(page, 'queues-one');

      // It keeps reading the list: once the server stopped, it says so and what to check.
      child!.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(
        /^The greenline server cannot be reached: .*\. Check that greenline serve is running and that http:\/\/127\.0\.0\.1:\d+ reaches it/,
      );
      expect(await page.getByRole('heading', { name: 'The greenline server cannot be reached' }).isVisible()).toBe(
        true,
      );
      expect(await page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
      await expectAccessible(page);
      await screenshots(page, 'queues-unreachable');
      await page.close();
    }, 60_000);
  });
});
