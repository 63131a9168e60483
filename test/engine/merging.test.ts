/**
 * Merge results (contract §6.2, §6.10): partial merges, lost races, target sightings during a merge.
 */
import { describe, expect, it } from 'vitest';
import { QueueDriver } from './queue-driver.js';

/** PRs 1–3 tested in one passing batch, its merge effect in flight. */
function mergingBatch(): QueueDriver {
  const q = new QueueDriver({ batch: true, batchingMinSize: 3 });
  for (const n of [1, 2, 3]) q.submit(n);
  q.built('r1');
  q.pass('r1');
  expect(q.effect('merge').prs.map((p) => p.number)).toEqual([1, 2, 3]);
  return q;
}

describe('merge results', () => {
  it('a partial merge: merged PRs are MERGED, the failing one FAILED, the rest retested on the new sha', () => {
    const q = mergingBatch();
    q.send({
      kind: 'mergeFailed',
      runId: 'r1',
      prNumbers: [1, 2, 3],
      reason: 'PR_UPDATED_AT_MERGE_TIME',
      mergedPrNumbers: [1],
      newTargetSha: 'S1',
    });
    expect([1, 2, 3].map((n) => `${q.state(n)}:${q.entry(n).lastReason}`)).toEqual([
      'MERGED:MERGE_GRAPH_MERGE',
      'FAILED:PR_UPDATED_AT_MERGE_TIME',
      'PENDING:PREREQUISITE_MERGE_ITEM_FAILED',
    ]);
    expect(q.snapshot.targetSha).toBe('S1');
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'S1', prs: [{ number: 3, headSha: 'h3' }] });
  });

  it('a partial merge without the new sha waits for the next sighting before testing again', () => {
    const q = mergingBatch();
    q.send({
      kind: 'mergeFailed',
      runId: 'r1',
      prNumbers: [1, 2, 3],
      reason: 'MERGE_REFUSED',
      mergedPrNumbers: [1],
    });
    expect([1, 2, 3].map((n) => q.state(n))).toEqual(['MERGED', 'FAILED', 'PENDING']);
    expect(q.snapshot.targetSha).toBeNull();
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.send({ kind: 'targetMoved', sha: 'S9' });
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'S9', prs: [{ number: 3, headSha: 'h3' }] });
  });

  it('TARGET_MOVED: nothing merged, everything is retested on the new head', () => {
    const q = mergingBatch();
    q.send({ kind: 'mergeFailed', runId: 'r1', prNumbers: [1, 2, 3], reason: 'TARGET_MOVED', newTargetSha: 'S2' });
    expect([1, 2, 3].map((n) => q.entry(n).lastReason)).toEqual(Array(3).fill('MANUAL_PUSH_TO_TARGET_BRANCH'));
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'S2' });
  });

  it("TARGET_MOVED after merging some: a PR seen merged before the result is the queue's merge, not an outside one", () => {
    const q = mergingBatch();
    q.send({ kind: 'prMergedOutside', prNumber: 1 });
    q.send({
      kind: 'mergeFailed',
      runId: 'r1',
      prNumbers: [1, 2, 3],
      reason: 'TARGET_MOVED',
      mergedPrNumbers: [1],
      newTargetSha: 'S1',
    });
    expect([1, 2, 3].map((n) => `${q.state(n)}:${q.entry(n).lastReason}`)).toEqual([
      'MERGED:MERGE_GRAPH_MERGE',
      'PENDING:MANUAL_PUSH_TO_TARGET_BRANCH',
      'PENDING:MANUAL_PUSH_TO_TARGET_BRANCH',
    ]);
    expect(q.effect('createTestBranch')).toMatchObject({
      baseSha: 'S1',
      prs: [
        { number: 2, headSha: 'h2' },
        { number: 3, headSha: 'h3' },
      ],
    });
  });

  it('a sighting of the sha our merge produced, reported before the merge result, changes nothing', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r1');
    const m = q.effect('merge');
    q.send({ kind: 'targetMoved', sha: 'm-r1' });
    expect(q.effects).toEqual([]);
    q.merged(m);
    expect(q.state(2)).toBe('TESTING'); // its test commit (S0 + 1 + 2) is still exactly what would land
    expect(q.entry(2).runId).toBe('r2');
  });

  it('a sighting of another sha during a merge restarts everything once the merge settled', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.submit(2);
    q.built('r1');
    q.built('r2');
    q.pass('r1');
    const m = q.effect('merge');
    q.send({ kind: 'targetMoved', sha: 'elsewhere' });
    q.merged(m);
    expect(q.state(1)).toBe('MERGED');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'MANUAL_PUSH_TO_TARGET_BRANCH' });
    expect(q.snapshot.targetSha).toBe('elsewhere');
  });

  it('a PR reported merged outside while its merge is in flight is settled by the merge result', () => {
    const q = mergingBatch();
    q.send({ kind: 'prMergedOutside', prNumber: 2 });
    expect(q.state(2)).toBe('TESTS_PASSED');
    q.send({ kind: 'mergeFailed', runId: 'r1', prNumbers: [1, 2, 3], reason: 'TARGET_MOVED', newTargetSha: 'S3' });
    expect(q.entry(2)).toMatchObject({ state: 'MERGED', lastReason: 'MANUAL_MERGE' });
    expect(q.effect('createTestBranch')).toMatchObject({
      baseSha: 'S3',
      prs: [
        { number: 1, headSha: 'h1' },
        { number: 3, headSha: 'h3' },
      ],
    });
  });

  it('a paused queue merges nothing; a push to a PR being merged is left to the merge result', () => {
    const q = new QueueDriver();
    q.startTesting(1);
    q.pass('r1');
    const m = q.effect('merge');
    q.send({
      kind: 'prObserved',
      pr: { number: 1, headSha: 'new', baseBranch: 'main', title: 'PR 1', author: 'dev', mergeability: 'mergeable' },
    });
    expect(q.state(1)).toBe('TESTS_PASSED');
    q.send({ kind: 'mergeFailed', runId: m.runId, prNumbers: [1], reason: 'PR_UPDATED_AT_MERGE_TIME' });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'PR_UPDATED_AT_MERGE_TIME' });
  });
});
