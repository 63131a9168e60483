/**
 * The dashboard signed in with a read-only token (greenline token create --scopes read) in Chromium
 * (harness.ts): it shows the queues, a queue, a pull request and a queue's settings, and no button
 * the token may not use: no Settings link, no Pause/Resume/Drain, no PR actions, no Save, no
 * chat-channel section (an administrator's). The token with every scope sees them.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { haveChromium, PR, QUEUE, QUEUE_KEY, screenshots, useDemo } from './harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SETTINGS = '#/settings/demo.greenline.local/acme/shop/main';

describe.skipIf(!haveChromium)('the dashboard with a read-only token', () => {
  const demo = useDemo();

  /** A page signed in with `token`. */
  async function signedInWith(token: string): Promise<Page> {
    const page = await demo.newPage();
    await page.goto(demo.url);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    return page;
  }

  const readOnlyToken = () => {
    const out = execFileSync(
      process.execPath,
      [
        path.join(ROOT, 'dist', 'cli.js'),
        'token',
        'create',
        '--org',
        'default',
        '--name',
        'viewer',
        '--scopes',
        'read',
        '--data-dir',
        demo.dir,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(out).toContain('scopes read');
    return out.trim().split('\n').at(-1)!;
  };

  it('shows what it may read and no button it may not use', async () => {
    const viewer = await signedInWith(readOnlyToken());
    const admin = await signedInWith(demo.token);

    // The list of queues: no Settings link for the viewer, History for both.
    await viewer.locator('tbody tr').first().waitFor();
    await admin.locator('tbody tr').first().waitFor();
    expect(await viewer.getByRole('link', { name: /^History/ }).count()).toBeGreaterThan(0);
    await admin
      .getByRole('link', { name: /^Settings/ })
      .first()
      .waitFor();
    expect(await viewer.getByRole('link', { name: /^Settings/ }).count()).toBe(0);

    // A queue: no Pause, Resume or Drain.
    for (const page of [viewer, admin]) await page.goto(`${demo.url}/${QUEUE}`);
    await admin.getByRole('button', { name: 'Pause' }).waitFor();
    await viewer
      .getByRole('heading', { name: /acme\/shop/ })
      .first()
      .waitFor();
    for (const name of ['Pause', 'Resume', 'Drain']) expect(await viewer.getByRole('button', { name }).count()).toBe(0);
    await screenshots(viewer, 'read-only-queue');

    // A queued pull request: actions for the token with every scope, none for the viewer.
    const queue = (await demo.api('getQueue', QUEUE_KEY)) as { enqueuedPullRequests: { prNumber: number }[] };
    const n = queue.enqueuedPullRequests[0]?.prNumber ?? 1;
    for (const page of [viewer, admin]) await page.goto(`${demo.url}/${PR(n)}`);
    await admin.getByRole('group', { name: 'Pull request actions' }).waitFor();
    await viewer
      .getByRole('heading', { name: new RegExp(`#${n}`) })
      .first()
      .waitFor();
    expect(await viewer.getByRole('group', { name: 'Pull request actions' }).count()).toBe(0);

    // The settings, by address: shown, none changeable, no state control, no Save.
    await viewer.goto(`${demo.url}/${SETTINGS}`);
    await viewer.locator('#read-only-note').waitFor();
    expect(await viewer.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    expect(await viewer.getByRole('group', { name: 'Queue state' }).count()).toBe(0);
    expect(await viewer.locator('.settings-form input:enabled, .settings-form select:enabled').count()).toBe(0);
    await admin.goto(`${demo.url}/${SETTINGS}`);
    await admin.getByRole('button', { name: 'Save settings' }).waitFor();
    await screenshots(viewer, 'read-only-settings');
    expect(demo.output()).not.toContain('[page error]');
  });
});
