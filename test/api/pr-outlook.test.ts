/**
 * The extension fields position, waitingOn and estimatedMergeAt of getSubmittedPullRequest, getQueue
 * and listPullRequests: present on every PR item, null when unknown, estimated from the queue's
 * finished test runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_STATE_MEANING } from '../../src/engine/queue-states.js';
import { createApiHarness, json, type ApiHarness } from './api-harness.js';

const MIN = 60_000;
let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(4);
});
afterEach(() => h.close());

const submit = (number: number) => h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
const getPr = async (number: number) => json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number } })));
const outlook = (p: { position: unknown; waitingOn: { code: string } | null; estimatedMergeAt: string | null }) => [
  p.position,
  p.waitingOn?.code ?? null,
  p.estimatedMergeAt === null ? null : (Date.parse(p.estimatedMergeAt) - h.t.clock.now()) / MIN,
];

describe('position, waitingOn and estimatedMergeAt', () => {
  it('are null for the estimate until a test run finished, then follow the observed CI time', async () => {
    await h.post('/v1/updateQueue', h.body({ concurrency: 1 }));
    await submit(1);
    await h.t.runEffects();
    await submit(2);
    await h.t.runEffects();

    const first = await getPr(1);
    expect(outlook(first)).toEqual([1, 'RUN_IN_FLIGHT', null]);
    expect(first.waitingOn.message).toMatch(/^Its test run is in flight \(started under a minute ago\)\.$/);
    expect(outlook(await getPr(2))).toEqual([2, 'PRS_AHEAD', null]);

    // The first run takes 10 minutes: the queue has now observed one CI time.
    h.t.clock.advance(10 * MIN);
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('MERGED');
    expect(outlook(await getPr(1))).toEqual([null, null, null]);
    expect(outlook(await getPr(2))).toEqual([1, 'RUN_IN_FLIGHT', 10]);

    await submit(3);
    await h.t.runEffects();
    h.t.clock.advance(4 * MIN);
    expect(outlook(await getPr(2))).toEqual([1, 'RUN_IN_FLIGHT', 6]);
    const third = await getPr(3);
    expect(outlook(third)).toEqual([2, 'PRS_AHEAD', 16]);
    // One CI time observed, no failure: the range is the estimate itself.
    expect(third.estimatedMergeRange).toEqual({ p10: third.estimatedMergeAt, p90: third.estimatedMergeAt });
    expect(first.estimatedMergeRange).toBeNull();

    const queue = json(await h.post('/v1/getQueue', h.body()));
    expect(queue.enqueuedPullRequests.map(outlook)).toEqual([
      [1, 'RUN_IN_FLIGHT', 6],
      [2, 'PRS_AHEAD', 16],
    ]);
    const list = json(await h.post('/v1/listPullRequests', h.body()));
    expect(
      Object.fromEntries(list.pullRequests.map((p: { prNumber: number }) => [p.prNumber, outlook(p as never)])),
    ).toEqual({
      1: [null, null, null],
      2: [1, 'RUN_IN_FLIGHT', 6],
      3: [2, 'PRS_AHEAD', 16],
    });
  });

  it('say a paused queue holds every PR, without an estimate', async () => {
    await submit(1);
    await h.t.runEffects();
    await h.post('/v1/updateQueue', h.body({ state: 'PAUSED' }));
    const pr = await getPr(1);
    expect(outlook(pr)).toEqual([1, 'QUEUE_PAUSED', null]);
    expect(pr.waitingOn.message).toBe(QUEUE_STATE_MEANING.PAUSED);
  });

  it('say a PR submitted to a paused queue waits for the queue, in its waitingOn and its reason', async () => {
    await h.post('/v1/updateQueue', h.body({ state: 'PAUSED' }));
    await submit(1);
    await h.t.runEffects();
    const pr = await getPr(1);
    expect(outlook(pr)).toEqual([null, 'QUEUE_PAUSED', null]);
    expect(pr.waitingOn.message).toMatch(/^The queue is paused: no PR is admitted/);
    expect(pr.reason).toMatchObject({ code: 'QUEUE_PAUSED' });
    expect(pr.reason.message).toBe('Submitted: the queue is paused; it is admitted once the queue is resumed.');
  });

  it('give a PR that is not ready no position', async () => {
    h.t.forge.openPr('github.com/acme/web', { number: 4, mergeability: 'not_mergeable' });
    await submit(4);
    await h.t.runEffects();
    const pr = await getPr(4);
    expect(outlook(pr)).toEqual([null, 'NOT_READY', null]);
    expect(pr.waitingOn.message).toBe('It is not ready to be tested: the forge says it cannot be merged.');
  });
});
