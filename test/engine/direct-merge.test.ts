/**
 * Direct merge (contract §6.9): NOT_READY/PENDING → MERGED (MERGE_GRAPH_DIRECT_MERGE).
 */
import { describe, expect, it } from 'vitest';
import { QueueDriver } from './queue-driver.js';

const direct = { baseSha: 'S0', checksPassed: true };

describe('direct merge', () => {
  it('merges a PR based on the tip with passing checks into an empty queue, without a test run', () => {
    const q = new QueueDriver({ directMergeMode: 'always', mergeMethod: 'merge_commit' });
    q.submit(1, { pr: direct });
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    const m = q.effect('merge');
    expect(m).toMatchObject({
      expectedTargetSha: 'S0',
      testSha: 'h1',
      prs: [{ number: 1, headSha: 'h1' }],
      method: 'merge_commit',
    });
    q.merged(m);
    expect(q.entry(1)).toMatchObject({ state: 'MERGED', lastReason: 'MERGE_GRAPH_DIRECT_MERGE' });
    expect(q.snapshot.targetSha).toBe(`m-${m.runId}`);
  });

  it.each([
    ['the setting is off', {}, { baseSha: 'S0', checksPassed: true }],
    ['the PR is not based on the tip', { directMergeMode: 'always' as const }, { baseSha: 'old', checksPassed: true }],
    ['its checks did not pass', { directMergeMode: 'always' as const }, { baseSha: 'S0', checksPassed: false }],
    ['the forge does not know', { directMergeMode: 'always' as const }, {}],
  ])('goes through the queue when %s', (_why, config, pr) => {
    const q = new QueueDriver(config);
    q.submit(1, { pr });
    expect(q.effectsOf('merge')).toEqual([]);
    expect(q.effect('createTestBranch').runId).toBe('r1');
  });

  it('goes through the queue when other PRs are queued', () => {
    const q = new QueueDriver({ directMergeMode: 'always' });
    q.startTesting(1);
    q.submit(2, { pr: direct });
    expect(q.effectsOf('merge')).toEqual([]);
  });

  it('a failed direct merge fails the PR with DIRECT_MERGE_REFUSED', () => {
    const q = new QueueDriver({ directMergeMode: 'always' });
    q.submit(1, { pr: direct });
    const m = q.effect('merge');
    q.send({
      kind: 'mergeFailed',
      runId: m.runId,
      prNumbers: [1],
      reason: 'MERGE_REFUSED',
      detail: 'protected',
    });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'DIRECT_MERGE_REFUSED' });
  });

  it('a direct merge that lost the race leaves the PR in the queue for the normal flow', () => {
    const q = new QueueDriver({ directMergeMode: 'always' });
    q.submit(1, { pr: direct });
    const m = q.effect('merge');
    q.send({ kind: 'mergeFailed', runId: m.runId, prNumbers: [1], reason: 'TARGET_MOVED', newTargetSha: 'S1' });
    expect(q.state(1)).toBe('PENDING');
    expect(q.effect('createTestBranch').baseSha).toBe('S1');
  });
});
