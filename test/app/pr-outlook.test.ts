/**
 * The outlook (position, waiting reason, estimated merge) of a queue is worked out once per committed
 * state of the queue and answered again for OUTLOOK_FRESH_MS: reads of an unchanged queue share it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OUTLOOK_FRESH_MS, outlookOf } from '../../src/app/executor/pr-outlook.js';
import { createQueueFixture, type QueueFixture } from '../helpers/service.js';

let f: QueueFixture | undefined;
afterEach(() => f?.t.close());

describe('outlookOf', () => {
  it('answers the same outlook for an unchanged queue within OUTLOOK_FRESH_MS, and works it out again after', async () => {
    f = await createQueueFixture();
    const { t, ctx, key, repo } = f;
    t.forge.openPr(repo, { number: 1, title: 'Change 1', author: 'dev' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const queue = (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
    const snapshot = await t.app.executor.read(queue);
    const now = t.clock.now();
    const first = await outlookOf(t.db, queue, snapshot, now);
    expect(first.get(1)?.position).toBe(1);
    expect(await outlookOf(t.db, queue, snapshot, now + OUTLOOK_FRESH_MS - 1)).toBe(first);
    expect(await outlookOf(t.db, queue, await t.app.executor.read(queue), now)).toBe(first);
    const later = await outlookOf(t.db, queue, snapshot, now + OUTLOOK_FRESH_MS);
    expect(later).not.toBe(first);
    expect(later.get(1)?.position).toBe(1);
    // Another committed state of the queue is worked out anew at once.
    t.forge.openPr(repo, { number: 2, title: 'Change 2', author: 'dev' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    const changed = await outlookOf(t.db, queue, await t.app.executor.read(queue), now + 1);
    expect(changed.get(2)?.position).toBe(2);
  });
});
