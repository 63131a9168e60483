/**
 * Risk-aware batching (risk.ts): a PR whose author's PRs failed in the queue far more often than the
 * others' is tested on its own before it joins a batch, and says why; the setting turns it off.
 */
import { describe, expect, it } from 'vitest';
import { riskyAuthor, whyScreened } from '../../src/engine/risk.js';
import type { QueueConfig } from '../../src/engine/types.js';
import { QueueDriver } from './queue-driver.js';

/** `failed` failures among `n` outcomes, the failures last. */
const outcomes = (n: number, failed: number): number[] => [...Array(n - failed).fill(0), ...Array(failed).fill(1)];

describe('which authors stand out', () => {
  it('singles out an author whose PRs fail far more often than the others’', () => {
    const authors = { rex: outcomes(20, 5), ann: outcomes(40, 1) };
    // (5 + 10 × 1/40) / (20 + 10) = 0.175: above 10% and above twice the others' 2.5%.
    expect(riskyAuthor(authors, 'rex')).toEqual({ failed: 5, outcomes: 20, rate: 0.175, rest: 0.025 });
    expect(riskyAuthor(authors, 'ann')).toBeNull();
    expect(whyScreened(riskyAuthor(authors, 'rex')!)).toBe(
      "tested on its own before it joins a batch: 5 of its author's last 20 PRs in this queue failed, against 3% of the others', so a batch with it would likely fail",
    );
  });

  it('does not single out one failure, an author like the others, or anyone when the others are unknown', () => {
    expect(riskyAuthor({ rex: [1], ann: outcomes(40, 1) }, 'rex')).toBeNull(); // one failure, however new the author
    expect(riskyAuthor({ rex: outcomes(20, 3), ann: outcomes(40, 6) }, 'rex')).toBeNull(); // 15% like the others' 15%
    expect(riskyAuthor({ rex: outcomes(20, 10) }, 'rex')).toBeNull(); // one author: nobody to compare with
    expect(riskyAuthor({ rex: outcomes(20, 10), ann: outcomes(19, 0) }, 'rex')).toBeNull(); // too little known of others
    expect(riskyAuthor({ rex: outcomes(20, 10), ann: outcomes(20, 0) }, 'rex')).not.toBeNull();
  });
});

describe('the engine', () => {
  const config: Partial<QueueConfig> = { concurrency: 2, batch: true, batchingMinSize: 4, bisectionConcurrency: 2 };
  /** A queue whose record says rex's PRs failed 5 of 20 times, ann's 1 of 40; PR 4 is rex's. */
  function queue(over: Partial<QueueConfig> = {}) {
    const q = new QueueDriver({ ...config, ...over });
    q.snapshot = {
      ...q.snapshot,
      internal: { ...q.snapshot.internal, authors: { rex: outcomes(20, 5), ann: outcomes(40, 1) } },
    };
    for (const n of [1, 2, 3, 4, 5]) q.submit(n, { pr: { author: n === 4 ? 'rex' : 'ann' } });
    return q;
  }
  const started = (q: QueueDriver) => q.snapshot.runs.map((r) => ({ id: r.id, queue: r.queueType, prs: r.prNumbers }));

  it('tests the risky PR on its own on the bisection budget, batches the others, and says why', () => {
    const q = queue();
    expect(started(q)).toEqual([
      { id: 'r1', queue: 'bisection', prs: [4] },
      { id: 'r2', queue: 'main', prs: [1, 2, 3, 5] },
    ]);
    q.built('r1');
    expect(q.last(4)).toMatchObject({
      to: 'TESTING',
      detail: whyScreened({ failed: 5, outcomes: 20, rate: 0.175, rest: 0.025 }),
    });
  });

  it('a risky PR that fails is rejected alone: the batch of the others runs on', () => {
    const q = queue();
    q.built('r1');
    q.built('r2');
    q.fail('r1');
    expect(q.state(4)).toBe('FAILED');
    expect(q.run('r2').status).toBe('in_progress');
    expect([1, 2, 3, 5].map((n) => q.state(n))).toEqual(['TESTING', 'TESTING', 'TESTING', 'TESTING']);
  });

  it('a risky PR that passes joins the batches as a PR that passed a run', () => {
    const q = queue();
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    q.merged();
    for (const n of [6, 7, 8]) q.submit(n, { pr: { author: 'ann' } }); // a batch waiting to fill
    q.pass('r1');
    // Its run was built on the target before the batch merged: it no longer holds, so 4 is tested
    // again, in the main queue, batched with the PRs that wait, and not screened again.
    const batch = q.snapshot.runs.find((r) => r.queueType === 'main' && r.prNumbers.includes(4));
    expect(batch?.prNumbers).toEqual([4, 6, 7, 8]);
    expect(q.entry(4).evidence).toMatchObject({ passed: true });
  });

  it('with riskAwareBatching off, batches every PR alike', () => {
    const q = queue({ riskAwareBatching: 'off' });
    expect(started(q)).toEqual([{ id: 'r1', queue: 'main', prs: [1, 2, 3, 4] }]);
  });

  it('keeps each author’s latest outcomes in the queue', () => {
    const q = new QueueDriver();
    const authors = () => (q.snapshot.internal as { authors: Record<string, number[]> }).authors;
    q.fail(q.startTesting(1));
    expect(q.state(1)).toBe('FAILED');
    q.pass(q.startTesting(2));
    q.merged();
    expect(authors()).toEqual({ dev: [1, 0] });
    for (let n = 3; n <= 30; n++) {
      q.pass(q.startTesting(n));
      q.merged();
    }
    expect(authors().dev).toEqual(outcomes(20, 0));
  });
});
