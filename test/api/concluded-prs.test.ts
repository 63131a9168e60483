/**
 * POST /v1/listConcludedPullRequests: a queue's concluded PRs newest first, each filter, cursor
 * paging, and the 400s of bad input. In process over the test project's database (fake forge and CI).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GreenlineClient, type ConcludedPullRequest } from '../../src/client/index.js';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';
import type { Json } from '../helpers/json.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

const MINUTE = 60_000;
const list = (extra: Record<string, unknown> = {}) => h.post('/v1/listConcludedPullRequests', h.body(extra));
const numbers = async (extra: Record<string, unknown> = {}) => {
  const res = await list(extra);
  expect(res.statusCode, res.body).toBe(200);
  return json(res).pullRequests.map((p: Json) => p.prNumber);
};

type Outcome = 'merge' | 'fail' | 'cancel';

/** Submits PR `n` alone and concludes it: CI passes (merged), fails, or the PR is cancelled. */
async function conclude(n: number, outcome: Outcome): Promise<void> {
  expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: n } }))).statusCode).toBe(200);
  await h.t.runEffects();
  if (outcome === 'cancel') {
    expect((await h.post('/v1/cancelPullRequest', h.body({ pr: { number: n } }))).statusCode).toBe(200);
  } else {
    const runId = h.t.ci.startedRunIds().at(-1)!;
    await (outcome === 'merge' ? h.t.ci.pass(runId) : h.t.ci.fail(runId));
  }
  await h.t.runEffects();
}

const PRS: { n: number; title: string; author: string; outcome: Outcome }[] = [
  { n: 1, title: 'Add login page', author: 'alice', outcome: 'merge' },
  { n: 2, title: 'Fix login crash', author: 'bob', outcome: 'fail' },
  { n: 3, title: 'Docs: 100% coverage_note', author: 'alice', outcome: 'cancel' },
  { n: 4, title: 'Refactor auth', author: 'Carol', outcome: 'merge' },
  { n: 5, title: 'Bump deps for 12', author: 'bob', outcome: 'merge' },
];

/** PRs 1..5 concluded a minute apart (PR n at start + n minutes); PR 6 submitted, still in the queue. */
async function history(): Promise<number> {
  expect((await h.post('/v1/createQueue', h.body())).statusCode).toBe(200);
  for (const pr of [...PRS, { n: 6, title: 'Still testing', author: 'dave' }])
    h.t.forge.openPr(SLUG, { number: pr.n, title: pr.title, author: pr.author });
  const start = h.t.clock.now();
  for (const pr of PRS) {
    h.t.clock.advance(MINUTE);
    await conclude(pr.n, pr.outcome);
  }
  expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 6 } }))).statusCode).toBe(200);
  await h.t.runEffects();
  return start;
}

const at = (ms: number) => new Date(ms).toISOString();

describe('POST /v1/listConcludedPullRequests', () => {
  it('answers an empty list before any PR concluded', async () => {
    expect((await h.post('/v1/createQueue', h.body())).statusCode).toBe(200);
    expect(json(await list())).toEqual({ pullRequests: [], total: 0 });
  });

  it('lists the concluded PRs newest first with the reason in words, not those still in the queue', async () => {
    const start = await history();
    const res = await list();
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.total).toBe(5);
    expect(body.nextCursor).toBeUndefined();
    expect(body.pullRequests.map((p: Json) => [p.prNumber, p.state])).toEqual([
      [5, 'MERGED'],
      [4, 'MERGED'],
      [3, 'CANCELLED'],
      [2, 'FAILED'],
      [1, 'MERGED'],
    ]);
    const failed = body.pullRequests[3];
    expect(failed).toMatchObject({
      prTitle: 'Fix login crash',
      prAuthor: 'bob',
      concludedAt: at(start + 2 * MINUTE),
      submittedAt: at(start + 2 * MINUTE),
      reason: 'TEST_RUN_REQUIRED_STATUS_FAILED',
      explanation: { code: 'TEST_RUN_REQUIRED_STATUS_FAILED', message: expect.stringMatching(/^Failed: /) },
      timeInQueueSeconds: 0,
      flaky: false,
    });
    expect(failed.testRunId).toEqual(expect.any(String));
    expect(body.pullRequests[2]).toMatchObject({ reason: 'API_REQUESTED', testRunId: expect.any(String) });
  });

  it('measures the time in queue from submission to conclusion', async () => {
    expect((await h.post('/v1/createQueue', h.body())).statusCode).toBe(200);
    h.t.forge.openPr(SLUG, { number: 1, title: 'Slow', author: 'alice' });
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();
    h.t.clock.advance(5 * MINUTE);
    await h.t.ci.pass(h.t.ci.startedRunIds()[0]!);
    await h.t.runEffects();
    const [pr] = json(await list()).pullRequests;
    expect(pr).toMatchObject({ prNumber: 1, state: 'MERGED', timeInQueueSeconds: 300 });
  });

  it('filters by state, in any letter case', async () => {
    await history();
    expect(await numbers({ states: ['FAILED'] })).toEqual([2]);
    expect(await numbers({ states: ['merged', 'Cancelled'] })).toEqual([5, 4, 3, 1]);
    expect(await numbers({ states: [] })).toEqual([5, 4, 3, 2, 1]);
    expect(json(await list({ states: ['MERGED'] })).total).toBe(3);
  });

  it('filters by author, in any letter case', async () => {
    await history();
    expect(await numbers({ author: 'alice' })).toEqual([3, 1]);
    expect(await numbers({ author: 'CAROL' })).toEqual([4]);
    expect(await numbers({ author: 'nobody' })).toEqual([]);
    expect(json(await list({ author: 'bob' })).total).toBe(2);
  });

  it('filters by conclusion time, both ends included', async () => {
    const start = await history();
    expect(await numbers({ from: at(start + 2 * MINUTE), to: at(start + 4 * MINUTE) })).toEqual([4, 3, 2]);
    expect(await numbers({ from: at(start + 4 * MINUTE) })).toEqual([5, 4]);
    expect(await numbers({ to: at(start + MINUTE) })).toEqual([1]);
    expect(await numbers({ from: at(start + 10 * MINUTE) })).toEqual([]);
  });

  it('searches titles in any letter case and PR numbers, with or without #', async () => {
    await history();
    expect(await numbers({ search: 'LOGIN' })).toEqual([2, 1]);
    expect(await numbers({ search: '4' })).toEqual([4]);
    expect(await numbers({ search: '#2' })).toEqual([2]);
    // 12 is no PR number, but it is in a title.
    expect(await numbers({ search: '12' })).toEqual([5]);
    // LIKE's wildcards are searched as text.
    expect(await numbers({ search: '%' })).toEqual([3]);
    expect(await numbers({ search: '_' })).toEqual([3]);
    expect(await numbers({ search: '  ' })).toEqual([5, 4, 3, 2, 1]);
  });

  it('combines filters', async () => {
    await history();
    expect(await numbers({ states: ['MERGED'], author: 'bob', search: 'deps' })).toEqual([5]);
    expect(await numbers({ states: ['FAILED'], author: 'alice' })).toEqual([]);
  });

  it('pages with nextCursor until the last page, the total counting every page', async () => {
    await history();
    const pages: number[][] = [];
    let cursor: string | undefined;
    do {
      const res = await list({ take: 2, ...(cursor ? { cursor } : {}) });
      expect(res.statusCode, res.body).toBe(200);
      const body = json(res);
      expect(body.total).toBe(5);
      pages.push(body.pullRequests.map((p: Json) => p.prNumber));
      cursor = body.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toEqual([[5, 4], [3, 2], [1]]);
    // With a filter: the pages of the filtered list.
    const first = json(await list({ states: ['MERGED'], take: 2 }));
    expect(first.pullRequests.map((p: Json) => p.prNumber)).toEqual([5, 4]);
    expect(await numbers({ states: ['MERGED'], take: 2, cursor: first.nextCursor })).toEqual([1]);
  });

  it('keeps its place when PRs conclude between two pages', async () => {
    await history();
    const first = json(await list({ take: 2 }));
    h.t.clock.advance(MINUTE);
    await h.t.ci.pass(h.t.ci.startedRunIds().at(-1)!);
    await h.t.runEffects();
    expect(await numbers({ take: 2, cursor: first.nextCursor })).toEqual([3, 2]);
    expect(await numbers({ take: 2 })).toEqual([6, 5]);
  });

  it.each([
    [{ states: ['OPEN'] }, /states\/0.*MERGED, FAILED, CANCELLED/],
    [{ states: ['PENDING'] }, /states\/0.*MERGED, FAILED, CANCELLED/],
    [{ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }, /from is after to/],
    [{ from: 'yesterday' }, /from.*date-time/],
    [{ cursor: 'not-a-cursor' }, /cursor is not a nextCursor returned by listConcludedPullRequests/],
    [{ cursor: Buffer.from('12:x').toString('base64url') }, /cursor is not a nextCursor/],
    [{ take: 500 }, /take.*100/],
    [{ take: 0 }, /take/],
  ])('answers 400 naming the field for %j', async (extra, message) => {
    expect((await h.post('/v1/createQueue', h.body())).statusCode).toBe(200);
    const error = errorOf(await list(extra));
    expect(error).toMatchObject({ status: 400 });
    expect(error.message).toMatch(message);
  });

  it('is in the SDK, its pages read over HTTP', async () => {
    await history();
    const client = new GreenlineClient({ url: await h.app.listen({ port: 0, host: '127.0.0.1' }), token: h.token });
    const seen: ConcludedPullRequest[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listConcludedPullRequests({
        repo: REPO,
        targetBranch: 'main',
        states: ['merged'],
        take: 2,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.total).toBe(3);
      seen.push(...page.pullRequests);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.map((p) => [p.prNumber, p.state, p.explanation.code])).toEqual([
      [5, 'MERGED', 'MERGE_GRAPH_MERGE'],
      [4, 'MERGED', 'MERGE_GRAPH_MERGE'],
      [1, 'MERGED', 'MERGE_GRAPH_MERGE'],
    ]);
  });

  it('answers 404 for a branch without a queue', async () => {
    expect(errorOf(await list())).toMatchObject({ status: 404, code: 'QUEUE_NOT_FOUND' });
  });
});
