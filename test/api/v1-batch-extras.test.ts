/** v1's batch extras from Trunk's migration guide: getSubmittedPullRequests and listMergeQueueTestingResults. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

/** A parsed JSON answer (its shape is checked against the document where it matters). */
type Json = ReturnType<typeof json>;

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(4);
});
afterEach(() => h.close());

const submit = (number: number) => h.post('/v1/submitPullRequest', h.body({ pr: { number } }));

describe('POST /v1/getSubmittedPullRequests', () => {
  it('answers each submitted PR as getSubmittedPullRequest does, and the others in notFound', async () => {
    await submit(1);
    await submit(3);
    await h.t.runEffects();
    const res = await h.post(
      '/v1/getSubmittedPullRequests',
      h.body({ prs: [{ number: 3 }, { number: 2 }, { number: '1' }, { number: 9 }] }),
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    const single = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 3 } })));
    expect(body.pullRequests.map((p: Json) => p.prNumber)).toEqual([3, 1]);
    expect(body.pullRequests[0]).toEqual(single);
    expect(body.notFound).toEqual([{ number: 2 }, { number: 9 }]);
  });

  it('adds timelines with includeTimeline', async () => {
    await submit(1);
    await h.t.runEffects();
    const body = json(
      await h.post('/v1/getSubmittedPullRequests', h.body({ prs: [{ number: 1 }], includeTimeline: true })),
    );
    const single = json(
      await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 }, includeTimeline: true })),
    );
    expect(body.pullRequests[0].timeline).toEqual(single.timeline);
    expect(body.pullRequests[0].timeline.length).toBeGreaterThan(0);
  });

  it('takes 1 to 50 PRs and answers an unknown queue as v1 does', async () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ number: i + 1 }));
    expect(errorOf(await h.post('/v1/getSubmittedPullRequests', h.body({ prs: many })))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
    });
    expect(errorOf(await h.post('/v1/getSubmittedPullRequests', h.body({ prs: [] })))).toMatchObject({ status: 400 });
    const res = await h.post('/v1/getSubmittedPullRequests', {
      ...h.body({ prs: [{ number: 1 }] }),
      targetBranch: 'dev',
    });
    expect(errorOf(res)).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
  });
});

describe('POST /v1/listMergeQueueTestingResults', () => {
  it('lists finished testing, newest first, paged with offset and take', async () => {
    await submit(1);
    await h.t.runEffects();
    const [first] = h.t.ci.startedRunIds();
    await h.t.ci.fail(first!);
    await h.t.runEffects();
    await submit(2);
    await h.t.runEffects();
    const second = h.t.ci.startedRunIds().at(-1)!;
    h.t.clock.advance(5_000);
    await h.t.ci.pass(second);
    await h.t.runEffects();

    const all = json(await h.post('/v1/listMergeQueueTestingResults', h.body()));
    expect(all.totalItems).toBe(2);
    expect(all.testingResults).toEqual([
      expect.objectContaining({
        prNumber: 2,
        testRunId: second,
        outcome: 'passed',
        cycleConclusion: 'MERGED',
        bisection: null,
        testingDurationMs: 5000,
      }),
      expect.objectContaining({
        prNumber: 1,
        testRunId: first,
        outcome: 'failed',
        cycleConclusion: 'FAILED',
        bisection: null,
      }),
    ]);
    const page = json(await h.post('/v1/listMergeQueueTestingResults', h.body({ offset: 1, take: 1 })));
    expect(page).toEqual({ testingResults: [all.testingResults[1]], totalItems: 2 });
    // A v1 testRunId is the v2 verification run id of the same run.
    const details = await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: second }));
    expect(details.statusCode).toBe(200);
  });

  it('refuses a take beyond 100 and a negative offset', async () => {
    expect(errorOf(await h.post('/v1/listMergeQueueTestingResults', h.body({ take: 101 })))).toMatchObject({
      status: 400,
    });
    expect(errorOf(await h.post('/v1/listMergeQueueTestingResults', h.body({ offset: -1 })))).toMatchObject({
      status: 400,
    });
  });
});
