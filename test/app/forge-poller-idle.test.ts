/**
 * Idle queues of a polled forge back off, and wake at once on what can change them: a command, a
 * push notification. Counted in reads of the forge on a manual clock (the poll interval: a minute).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDLE_MAX_INTERVALS } from '../../src/app/observing/forge-poller.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { findRepo } from '../../src/store/repos.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
const MINUTE = 60_000;
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

beforeEach(async () => {
  ({ t, ctx, key } = await createQueueFixture());
});
afterEach(() => t.close());

/** The minutes (from now) of the ticks at which the poller read the queue, over `ticks` ticks. */
async function readsOver(ticks: number, during?: (minute: number) => Promise<void>): Promise<number[]> {
  const reads: number[] = [];
  for (let minute = 0; minute < ticks; minute++) {
    await during?.(minute);
    const before = t.forge.calls.length;
    await t.app.poller.pollOnce();
    if (t.forge.calls.slice(before).some((c) => c.startsWith('getBranchSha'))) reads.push(minute);
    t.clock.advance(MINUTE);
  }
  return reads;
}

const entry = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry;
/** A push notification of `refs` (the lease round renewed first, as the server's lease timer does). */
async function refsMoved(...refs: string[]): Promise<number> {
  await t.app.leases.refresh();
  return t.app.poller.refsMoved((await findRepo(t.db, 'github.com', 'acme', 'web'))!, refs);
}

describe('forge poller: idle queues back off', () => {
  it('a queue whose PRs wait and where nothing moves is read less and less often, up to IDLE_MAX_INTERVALS intervals', async () => {
    expect(IDLE_MAX_INTERVALS).toBe(8);
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    expect(await readsOver(32)).toEqual([0, 1, 3, 7, 15, 23, 31]);
  });

  it('a push is still noticed at the next read of the backed-off queue', async () => {
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await readsOver(8); // reads at 0, 1, 3, 7: the next at 15
    t.forge.pushToPr(REPO, 1);
    await readsOver(7);
    expect((await entry(1)).state).toBe('NOT_READY');
    await readsOver(1);
    expect(await entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_PUSHED_TO' });
  });

  it('a command on the queue brings it back to the interval', async () => {
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    t.forge.openPr(REPO, { number: 2, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    const reads = await readsOver(12, async (minute) => {
      if (minute === 9) await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    });
    // Backed off to 8 intervals after the read at 7; the submission at 9 wakes it: read at 9, 10, then 12.
    expect(reads).toEqual([0, 1, 3, 7, 9, 10]);
  });

  it('a queue testing a PR is read every interval', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    expect((await entry(1)).state).toBe('TESTING');
    expect(await readsOver(6)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a push notification reads the queues its refs concern at once, backed off or not', async () => {
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await readsOver(8);
    t.forge.pushToPr(REPO, 1);
    // A tag concerns no queue: nothing read.
    const before = t.forge.calls.length;
    expect(await refsMoved('refs/tags/v1')).toBe(0);
    expect(t.forge.calls.slice(before)).toEqual([]);
    expect(await refsMoved('refs/pull/1/head')).toBe(1);
    expect(await entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_PUSHED_TO' });
  });

  it("a push to the target branch, told by a notification, is the queue's new head at once", async () => {
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await readsOver(8);
    const head = t.forge.pushToBranch(REPO, 'main');
    expect(await refsMoved('refs/heads/other')).toBe(0);
    expect(await refsMoved('refs/heads/main')).toBe(1);
    expect((await t.service.getQueue(ctx, key)).snapshot.targetSha).toBe(head);
  });
});
