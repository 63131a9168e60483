/**
 * Blame by evidence (blame.ts): what the queue's runs told about a PR's head decides how a failed
 * batch is split and whether the PR is batched at all; each choice says why.
 */
import { describe, expect, it } from 'vitest';
import { splitByEvidence } from '../../src/engine/blame.js';
import type { Entry } from '../../src/engine/types.js';
import { QueueDriver } from './queue-driver.js';

/** An entry with evidence on its head: `p` passed a run, `f` failed one on its own, `-` nothing. */
function entry(prNumber: number, known: 'p' | 'f' | 'pf' | '-', headSha = `h${prNumber}`): Entry {
  return {
    prNumber,
    headSha,
    noBatch: false,
    ...(known === '-'
      ? {}
      : { evidence: { headSha: `h${prNumber}`, passed: known.includes('p'), failedAlone: known.includes('f') } }),
  } as Entry;
}

describe('splitting a failed set by evidence', () => {
  it('splits in halves when nothing tells the PRs apart', () => {
    expect(splitByEvidence([1, 2, 3, 4, 5].map((n) => entry(n, '-')))).toEqual({
      parts: [
        [1, 2, 3],
        [4, 5],
      ],
      why: null,
    });
    expect(splitByEvidence([1, 2, 3, 4].map((n) => entry(n, 'p'))).why).toBeNull();
  });

  it('cuts where the parts clear the most PRs in expectation, and says why', () => {
    const known = (n: number) => (n <= 5 ? 'p' : '-');
    const split = splitByEvidence([1, 2, 3, 4, 5, 6, 7, 8].map((n) => entry(n, known(n))));
    // Halves: 4 × (1 − 0.8/4) + 4 × (1 − 3.2/4) = 4.0 PRs cleared in expectation; this cut 5 × (1 − 1/4) + 3 × (1 − 3/4) = 4.5.
    expect(split.parts).toEqual([
      [1, 2, 3, 4, 5],
      [6, 7, 8],
    ]);
    expect(split.why).toBe(
      'split into #1, #2, #3, #4, #5 and #6, #7, #8, the parts most likely to pass: #1, #2, #3, #4, #5 passed a run with the same head before',
    );
    // Two PRs that passed and two that did not: the halves keep them apart, so no other reason is given.
    expect(splitByEvidence([entry(1, 'p'), entry(2, 'p'), entry(3, '-'), entry(4, '-')])).toEqual({
      parts: [
        [1, 2],
        [3, 4],
      ],
      why: null,
    });
  });

  it('tests on its own the likeliest culprit when that leaves the most PRs likely to pass together', () => {
    const split = splitByEvidence([entry(1, 'p'), entry(2, '-'), entry(3, 'p'), entry(4, 'p')]);
    expect(split.parts).toEqual([[2], [1, 3, 4]]);
    expect(split.why).toBe(
      '#2 is tested on its own, the others together: #1, #3, #4 passed a run with the same head before, so the others most likely pass together',
    );
    const failed = splitByEvidence([entry(1, 'f'), entry(2, '-'), entry(3, '-')]);
    expect(failed.parts).toEqual([[1], [2, 3]]);
    expect(failed.why).toBe(
      'split into #1 and #2, #3, the parts most likely to pass: #1 failed a run on its own with the same head before',
    );
  });

  it('ignores evidence about a head the PR no longer has', () => {
    const pushedSince = entry(3, 'f', 'h3-new');
    expect(splitByEvidence([entry(1, '-'), entry(2, '-'), pushedSince]).parts).toEqual([[1, 2], [3]]);
  });
});

describe('the engine', () => {
  const queue = (concurrency = 1) =>
    new QueueDriver({ concurrency, batch: true, batchingMinSize: 4, bisectionConcurrency: 4 });
  const creates = (q: QueueDriver) => q.effectsOf('createTestBranch').map((c) => q.run(c.runId).prNumbers);

  /**
   * Batches [1–4] and [5–8] on top of it; [1–4] fails, and its part [3,4] passes while the main runs
   * that left it out ([5–8], [5–12]) have used more CI time than it, so 3 and 4 go back to the queue
   * behind them, having passed a run. [1,2] then fails and splits in halves: nothing tells them apart.
   * Then PRs `more` are submitted and [5–8] and [9–12] merge: the next batch is [3, 4, …more].
   */
  function clearedThenBatched(more: number[]) {
    const q = queue(2);
    for (let n = 1; n <= 12; n++) q.submit(n);
    q.built('r1');
    q.built('r2');
    q.fail('r1');
    expect(creates(q)).toEqual([
      [1, 2],
      [3, 4],
      [5, 6, 7, 8],
      [9, 10, 11, 12],
    ]);
    for (const r of ['r3', 'r4', 'r5', 'r6']) q.built(r);
    q.pass('r4');
    expect([3, 4].map((n) => q.entry(n))).toMatchObject(
      [3, 4].map(() => ({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' })),
    );
    q.fail('r3');
    expect(creates(q)).toEqual([[1], [2]]);
    expect(q.last(1).detail).toBeUndefined();
    for (const n of more) q.submit(n);
    q.pass('r5');
    q.merged();
    q.pass('r6');
    q.merged();
    const batch = q.snapshot.runs.find((r) => r.prNumbers[0] === 3 && r.status === 'creating');
    expect(batch?.prNumbers).toEqual([3, 4, ...more]);
    q.built(batch!.id);
    q.fail(batch!.id);
    return q;
  }

  it('remembers that the PRs of a passed part passed, and splits their failed batch to test them together', () => {
    const q = clearedThenBatched([13, 14]);
    expect([3, 4].map((n) => q.entry(n).evidence)).toEqual([
      { headSha: 'h3', passed: true, failedAlone: false },
      { headSha: 'h4', passed: true, failedAlone: false },
    ]);
    expect(q.entry(13).evidence).toBeUndefined();
    expect(creates(q)).toEqual([
      [3, 4],
      [13, 14],
    ]);
    for (const n of [3, 4, 13, 14])
      expect(q.entry(n)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_REQUIRED' });
  });

  it('tests on its own, not in a batch, a PR queued again with the head that failed on its own, and says why', () => {
    const q = queue();
    q.submit(1, { noBatch: true });
    q.built('r1');
    q.fail('r1');
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', evidence: { headSha: 'h1', failedAlone: true } });
    q.submit(1);
    const create = q.effect('createTestBranch');
    expect(create.prs.map((p) => p.number)).toEqual([1]);
    for (const n of [2, 3, 4, 5]) q.submit(n);
    q.built(create.runId);
    expect(q.entry(1)).toMatchObject({ state: 'TESTING', lastReason: 'TEST_RUN_STARTED' });
    expect(q.last(1).detail).toBe(
      'tested on its own, not in a batch: this head failed a run on its own before, so a batch with it would likely fail',
    );
    q.pass(create.runId);
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2, 3, 4, 5]); // [2–5] on top of 1
  });

  it('batches it again once new commits replace the head that failed', () => {
    const q = queue();
    q.submit(1, { noBatch: true });
    q.built('r1');
    q.fail('r1');
    q.submit(1, { pr: { headSha: 'h1-fixed' } });
    for (const n of [2, 3, 4]) q.submit(n);
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2, 3, 4]);
  });
});
