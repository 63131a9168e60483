/**
 * The queue settings page (web/pages/settings.js) in a real Chromium against `greenline demo`
 * (harness.ts): every setting with the meaning the server's OpenAPI document gives it, changes through
 * the form checked with getQueue, the server's refusal beside the field it names, Terraform's drift
 * confirmation, the state and freeze controls, the keyboard, accessibility and phone width.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectAccessible, haveChromium, QUEUE, QUEUE_KEY, screenshots, useDemo } from './harness.js';

const SETTINGS = QUEUE.replace('#/queue/', '#/settings/');

interface Schema {
  description?: string;
}
/** A body's JSON schema in the OpenAPI document, as far as this test reads it. */
interface Properties {
  schema: { properties: Record<string, Schema> };
}
interface QueueAnswer {
  state: string;
  concurrency: number;
  ciRetries?: number;
  frozen?: boolean;
  frozenReason?: string | null;
  [name: string]: unknown;
}

describe.skipIf(!haveChromium)('the queue settings page in Chromium, on greenline demo', () => {
  const demo = useDemo();
  const getQueue = async () => (await demo.api('getQueue', QUEUE_KEY)) as QueueAnswer;
  const update = (body: Record<string, unknown>) => demo.api('updateQueue', { ...QUEUE_KEY, ...body });

  async function open(): Promise<Page> {
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${SETTINGS}`);
    await page.getByRole('heading', { name: 'Settings of acme/shop → main' }).waitFor();
    return page;
  }

  /** The outcome line `id` once it says something. */
  async function outcome(page: Page, id: string): Promise<string> {
    const line = page.locator(`#${id}`);
    await expect.poll(async () => (await line.textContent())?.trim() ?? '').not.toBe('');
    return (await line.textContent())!.trim();
  }

  /** Answers the confirmation dialog; returns what it said. */
  async function answer(page: Page, button: 'ok' | 'cancel'): Promise<string> {
    const dialog = page.locator('#confirm');
    await dialog.waitFor();
    const text = `${await page.locator('#confirm-title').textContent()} ${await page.locator('#confirm-text').textContent()}`;
    await dialog.locator(`button[value="${button}"]`).click();
    await dialog.waitFor({ state: 'hidden' });
    return text;
  }

  /** A time `ms` from now as a datetime-local input takes it, in the browser's time zone. */
  const localTime = (page: Page, ms: number) =>
    page.evaluate((offset) => {
      const d = new Date(Date.now() + offset);
      d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
      return d.toISOString().slice(0, 16);
    }, ms);

  it('shows every setting of getQueue that updateQueue takes, with the meaning the OpenAPI document gives it', async () => {
    const doc = (await (await fetch(`${demo.url}/v1/openapi.json`)).json()) as {
      paths: {
        '/v1/updateQueue': { post: { requestBody: { content: { 'application/json': Properties } } } };
        '/v1/getQueue': { post: { responses: { 200: { content: { 'application/json': Properties } } } } };
      };
    };
    const input = doc.paths['/v1/updateQueue'].post.requestBody.content['application/json'].schema.properties;
    const output = doc.paths['/v1/getQueue'].post.responses[200].content['application/json'].schema.properties;
    const ownSections = ['state', 'freezes', 'quarantinedStatuses', 'autoQuarantine', 'autoQuarantineThreshold'];
    // The commit message templates are set through updateQueue or the CLI, not this form.
    const own = [...ownSections, 'autoQuarantineMinResults', 'commitMessages'];
    const settings = Object.keys(input).filter((name) => name in output && !own.includes(name));
    expect(settings).toEqual(expect.arrayContaining(['concurrency', 'ciRetries', 'testingTimeoutMinutes']));
    expect(settings.length).toBeGreaterThan(25);

    const page = await open();
    for (const name of settings) {
      const row = page.locator('.setting').filter({ has: page.locator('code', { hasText: new RegExp(`^${name}$`) }) });
      expect(await row.count(), name).toBe(1);
      const description = input[name]!.description;
      expect(description, `${name} has a description in the OpenAPI document`).toBeTruthy();
      expect(await page.locator(`#meaning-${name}`).textContent(), name).toContain(description);
    }
    // Values: the demo's queue as getQueue answers it, the extensions left out meaning their defaults.
    const q = await getQueue();
    expect(await page.locator('#setting-concurrency').inputValue()).toBe(String(q.concurrency));
    expect(await page.locator('#setting-mode').inputValue()).toBe(q.mode);
    expect(await page.locator('#setting-mergeMethod').inputValue()).toBe(q.mergeMethod);
    expect(await page.locator('#setting-commentsEnabled').isChecked()).toBe(q.commentsEnabled);
    expect(await page.locator('#setting-ciRetries').inputValue()).toBe('0');
    expect(await page.locator('#setting-adaptiveMode').inputValue()).toBe('off');
    // The timeout in force, and the hints from the schema's range.
    expect(await page.locator('#in-force-testingTimeoutMinutes').textContent()).toContain(
      `In force now: ${q.testingTimeoutMinutes} minutes`,
    );
    expect(await page.locator('#meaning-ciRetries').textContent()).toContain('Expects an integer from 0 to 5.');
    expect(await page.locator('#setting-ciRetries').getAttribute('max')).toBe('5');
    // State and freezes, each with its meaning.
    expect(await page.locator('#state-title + p').textContent()).toContain('The queue is RUNNING');
    expect(await page.getByRole('region', { name: 'Freezes' }).textContent()).toContain(input.freezes!.description);

    await expectAccessible(page);
    await screenshots(page, 'settings');
    await page.close();
  }, 60_000);

  it('changes concurrency and ciRetries through the form, and says what changed', async () => {
    const before = await getQueue();
    const page = await open();
    await page.locator('#setting-concurrency').fill('5');
    await page.locator('#setting-ciRetries').fill('2');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await outcome(page, 'save-outcome')).toBe(`Saved: concurrency ${before.concurrency} → 5; ciRetries 0 → 2.`);
    const after = await getQueue();
    expect([after.concurrency, after.ciRetries]).toEqual([5, 2]);
    // The page shows the queue as it is now.
    expect(await page.locator('#setting-concurrency').inputValue()).toBe('5');
    await update({ concurrency: before.concurrency, ciRetries: 0 });
    await page.close();
  }, 60_000);

  it('edits the required statuses as a list, and removes the override', async () => {
    expect((await getQueue()).requiredStatuses).toBeNull();
    const page = await open();
    await page.getByLabel("Override the repository's required checks").check();
    expect(await page.locator('.status-list').textContent()).toContain('No status is required');
    await page.getByRole('button', { name: 'Add a required status' }).click();
    await page.getByLabel('Required status 1', { exact: true }).fill('greenline/ci');
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await outcome(page, 'save-outcome')).toBe("Saved: requiredStatuses the repository's checks → greenline/ci.");
    expect((await getQueue()).requiredStatuses).toEqual(['greenline/ci']);

    await page.getByLabel("Override the repository's required checks").uncheck();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect
      .poll(() => page.locator('#save-outcome').textContent())
      .toBe("Saved: requiredStatuses greenline/ci → the repository's checks.");
    expect((await getQueue()).requiredStatuses).toBeNull();
    await page.close();
  }, 60_000);

  it("shows the server's refusal beside the field it names, and changes nothing", async () => {
    const before = await getQueue();
    const page = await open();
    await page.locator('#setting-concurrency').fill('4');
    await page.locator('#setting-ciRetries').fill('9');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const error = page.locator('#error-ciRetries');
    await error.waitFor();
    expect(await error.textContent()).toBe('Must be an integer from 0 to 5, got 9.');
    expect(await page.locator('#setting-ciRetries').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-ciRetries').getAttribute('aria-describedby')).toContain('error-ciRetries');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('setting-ciRetries');
    expect(await outcome(page, 'save-outcome')).toMatch(/^Not saved: VALIDATION_FAILED: .*Nothing was changed\.$/);
    const after = await getQueue();
    expect([after.concurrency, after.ciRetries]).toEqual([before.concurrency, before.ciRetries]);
    // What was typed stays, to be corrected.
    expect(await page.locator('#setting-concurrency').inputValue()).toBe('4');
    await expectAccessible(page);
    await page.close();
  }, 60_000);

  it('pauses, drains and resumes, each after confirmation and only where the API accepts it', async () => {
    const page = await open();
    const controls = page.getByRole('group', { name: 'Queue state' });
    const buttons = async () => (await controls.getByRole('button').allTextContents()).join(',');
    expect(await buttons()).toBe('Pause,Drain');

    await controls.getByRole('button', { name: 'Pause' }).click();
    expect(await answer(page, 'cancel')).toContain('no test run starts and nothing merges until it is resumed');
    expect((await getQueue()).state).toBe('RUNNING');

    await controls.getByRole('button', { name: 'Pause' }).click();
    await answer(page, 'ok');
    expect(await outcome(page, 'state-outcome')).toBe('Pause: done. The queue is PAUSED.');
    expect((await getQueue()).state).toBe('PAUSED');
    expect(await buttons()).toBe('Resume,Drain');
    // Pause is gone: keyboard focus stays in the controls rather than falling back to the page.
    expect(await page.evaluate(() => document.activeElement?.closest('[aria-label="Queue state"]') != null)).toBe(true);

    await controls.getByRole('button', { name: 'Drain' }).click();
    await answer(page, 'ok');
    await expect.poll(() => page.locator('#state-outcome').textContent()).toBe('Drain: done. The queue is DRAINING.');
    expect((await getQueue()).state).toBe('DRAINING');
    expect(await buttons()).toBe('Pause,Resume');

    await controls.getByRole('button', { name: 'Resume' }).click();
    await answer(page, 'ok');
    await expect.poll(() => page.locator('#state-outcome').textContent()).toBe('Resume: done. The queue is RUNNING.');
    expect((await getQueue()).state).toBe('RUNNING');
    expect(await buttons()).toBe('Pause,Drain');
    await page.close();
  }, 60_000);

  it('freezes until a time with a reason, refuses a freeze that ends before it starts, and unfreezes', async () => {
    const page = await open();
    const freezes = page.getByRole('region', { name: 'Freezes' });
    expect(await freezes.getByRole('button', { name: 'Unfreeze' }).count()).toBe(0);

    // A time already past: the server's refusal beside "Until", and no freeze.
    await page.locator('#freeze-until').fill(await localTime(page, -3_600_000));
    await page.locator('#freeze-reason').fill('release 2.4');
    await freezes.getByRole('button', { name: 'Freeze', exact: true }).click();
    await answer(page, 'ok');
    const error = page.locator('#freeze-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/until must be after from/);
    expect(await page.locator('#freeze-until').getAttribute('aria-describedby')).toContain('freeze-error');
    expect((await getQueue()).frozen).toBeUndefined();

    await page.locator('#freeze-until').fill(await localTime(page, 3_600_000));
    await freezes.getByRole('button', { name: 'Freeze', exact: true }).click();
    expect(await answer(page, 'ok')).toContain('it starts no merge');
    expect(await outcome(page, 'freeze-outcome')).toMatch(/^Frozen until .+: release 2\.4\.$/);
    const frozen = await getQueue();
    expect([frozen.frozen, frozen.frozenReason]).toEqual([true, 'release 2.4']);
    expect(await freezes.locator('#freeze').textContent()).toContain('Frozen until');

    await freezes.getByRole('button', { name: 'Unfreeze' }).click();
    expect(await answer(page, 'ok')).toContain('End "release 2.4" now');
    await expect
      .poll(() => page.locator('#freeze-outcome').textContent())
      .toBe('Ended "release 2.4": the queue is not frozen.');
    expect((await getQueue()).frozen).toBe(false);
    expect(await freezes.getByRole('button', { name: 'Unfreeze' }).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('freeze-until');
    await page.close();
  }, 60_000);

  it('is usable with Tab and Enter alone, from the queue page to a saved change', async () => {
    const before = await getQueue();
    const page = await demo.signedIn();
    await page.goto(`${demo.url}/${QUEUE}`);
    await page.getByRole('heading', { name: 'acme/shop → main' }).waitFor();
    /** Presses Tab until `matches` holds for the focused element (at most `max` times). */
    const tabTo = async (matches: (el: Element) => boolean, what: string, max = 80) => {
      for (let i = 0; i < max; i++) {
        await page.keyboard.press('Tab');
        const handle = await page.evaluateHandle(() => document.activeElement);
        if (await handle.evaluate(matches)) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo((el) => el.textContent === 'Settings' && el.tagName === 'A', 'the Settings link');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Settings of acme/shop → main' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');

    await tabTo((el) => el.id === 'setting-concurrency', 'concurrency');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(String(before.concurrency + 1));
    await page.keyboard.press('Enter');
    expect(await outcome(page, 'save-outcome')).toBe(
      `Saved: concurrency ${before.concurrency} → ${before.concurrency + 1}.`,
    );
    expect((await getQueue()).concurrency).toBe(before.concurrency + 1);

    await tabTo((el) => el.textContent === 'Save settings', 'Save settings');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#save-outcome').textContent())
      .toBe('Nothing to save: every setting is as the queue has it.');
    await update({ concurrency: before.concurrency });
    await page.close();
  }, 60_000);

  it('asks before changing a queue Terraform manages, saying it will drift; Cancel changes nothing', async () => {
    const before = await getQueue();
    await demo.api('updateQueue', { ...QUEUE_KEY, concurrency: before.concurrency }, { 'x-source': 'terraform' });
    const page = await open();
    expect(await page.locator('#management').textContent()).toContain('Managed by Terraform.');

    await page.locator('#setting-concurrency').fill(String(before.concurrency + 3));
    await page.getByRole('button', { name: 'Save settings' }).click();
    expect(await answer(page, 'cancel')).toMatch(/drift from Terraform's configuration/);
    expect(await outcome(page, 'save-outcome')).toBe('Not saved: cancelled. Nothing was changed.');
    expect((await getQueue()).concurrency).toBe(before.concurrency);
    expect(await page.locator('#management').textContent()).toContain('Managed by Terraform.');

    await page.getByRole('button', { name: 'Save settings' }).click();
    await answer(page, 'ok');
    await expect
      .poll(() => page.locator('#save-outcome').textContent())
      .toBe(`Saved: concurrency ${before.concurrency} → ${before.concurrency + 3}.`);
    expect((await getQueue()).concurrency).toBe(before.concurrency + 3);
    await expect.poll(() => page.locator('#management').textContent()).toContain('Changed outside Terraform since');

    // The state controls say so too.
    await page.getByRole('group', { name: 'Queue state' }).getByRole('button', { name: 'Pause' }).click();
    expect(await answer(page, 'cancel')).toContain('this counts as a change outside Terraform');
    await screenshots(page, 'settings-terraform');
    await update({ concurrency: before.concurrency });
    await page.close();
  }, 60_000);
});
