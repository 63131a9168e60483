/** The forge poller turns what it reads from the forge into engine events. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

beforeEach(async () => {
  ({ t, ctx, key } = await createQueueFixture());
});
afterEach(() => t.close());

const entry = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry;

describe('forge poller', () => {
  it('a push to a queued PR cancels it (PR_PUSHED_TO)', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    t.forge.pushToPr(REPO, 1);
    await t.app.poller.pollOnce();
    expect(await entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_PUSHED_TO' });
  });

  it('a closed PR is cancelled (PR_CLOSED)', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    t.forge.closePr(REPO, 1);
    await t.app.poller.pollOnce();
    expect(await entry(1)).toMatchObject({ state: 'CANCELLED', lastReason: 'PR_CLOSED' });
  });

  it('a PR that became mergeable is admitted', async () => {
    t.forge.openPr(REPO, { number: 1, mergeability: 'not_mergeable' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    expect((await entry(1)).state).toBe('NOT_READY');
    t.forge.state(REPO).prs.get(1)!.mergeability = 'mergeable';
    await t.app.poller.pollOnce();
    expect((await entry(1)).state).not.toBe('NOT_READY');
  });

  it('a push to the target branch outside the queue restarts testing on the new head', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const first = (await entry(1)).runId;
    const head = t.forge.pushToBranch(REPO, 'main');
    await t.app.poller.pollOnce();
    expect((await t.service.getQueue(ctx, key)).snapshot.targetSha).toBe(head);
    const e = await entry(1);
    expect(e.runId).not.toBe(first);
    expect(e.timeline.some((i) => i.reason === 'MANUAL_PUSH_TO_TARGET_BRANCH')).toBe(true);
  });

  it('does not mistake its own merge, observed before the merged event is applied, for an outside push', async () => {
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr(REPO, { number: 2 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    await t.runEffects();
    await t.ci.pass((await entry(1)).runId!);
    // The merge effect is pending: simulate the forge having moved already (our own merge in flight).
    const q = (await t.service.getQueue(ctx, key)).snapshot;
    t.forge.state(REPO).branches.set('main', t.forge.state(REPO).branches.get(t.ci.started[0]!.branch)!);
    await t.app.poller.pollOnce();
    expect((await t.service.getQueue(ctx, key)).snapshot.targetSha).toBe(q.targetSha);
    expect((await entry(2)).timeline.some((i) => i.reason === 'MANUAL_PUSH_TO_TARGET_BRANCH')).toBe(false);
  });

  it('keeps polling the other queues when one fails', async () => {
    await t.connectRepo('acme', 'github.com/acme/api');
    const api = t.key('github.com/acme/api');
    await t.service.createQueue(ctx, api, {});
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr('github.com/acme/api', { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.service.submitPullRequest(ctx, api, { prNumber: 1 });
    t.forge.closePr('github.com/acme/api', 1);
    t.forge.closePr(REPO, 1);
    t.forge.failNext('getBranchSha');
    await t.app.poller.pollOnce();
    const states = [
      (await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.state,
      (await t.service.getSubmittedPullRequest(ctx, api, { number: 1 })).entry.state,
    ];
    expect(states.filter((s) => s === 'CANCELLED')).toHaveLength(1);
  });
});
