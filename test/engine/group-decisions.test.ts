/**
 * decideAll: the API's requests that arrive together are decided together — each applied at its own
 * time, the queue settled once — and a rejected one does not stop the others.
 */
import { describe, expect, it } from 'vitest';
import { decide, decideAll, groupKey, type EngineEvent, type GroupableEvent } from '../../src/engine/index.js';
import { prInfo, QueueDriver } from './queue-driver.js';

const submit = (n: number, at: number, priority?: 'high'): GroupableEvent => ({
  kind: 'submit',
  at,
  entryId: `entry-${n}`,
  pr: prInfo(n),
  reason: 'API_REQUESTED',
  ...(priority ? { priority } : {}),
});
const cancel = (n: number, at: number): GroupableEvent => ({
  kind: 'cancel',
  at,
  prNumber: n,
  reason: 'API_REQUESTED',
});

describe('decideAll', () => {
  it('applies each submission at its own time and settles once: the runs start as for one decision', () => {
    const q = new QueueDriver({ concurrency: 2 });
    const group = decideAll(q.snapshot, [submit(1, 2_000), submit(2, 2_001), submit(3, 2_002)], q.ctx);
    expect(group.rejections).toEqual([null, null, null]);
    const entry = (n: number) => group.snapshot.entries.find((e) => e.prNumber === n)!;
    expect([1, 2, 3].map((n) => entry(n).submittedAt)).toEqual([2_000, 2_001, 2_002]);
    expect([1, 2, 3].map((n) => entry(n).runId !== null)).toEqual([true, true, false]);
    // Two test branches, one per run of the two slots, and no run started then dropped within the group.
    expect(group.effects.filter((e) => e.kind === 'createTestBranch')).toHaveLength(2);
    expect(group.effects.filter((e) => e.kind === 'deleteTestBranch')).toHaveLength(0);
  });

  it('settles once: of two submissions decided together, the higher priority is tested first', () => {
    const q = new QueueDriver({ concurrency: 1 });
    const together = decideAll(q.snapshot, [submit(1, 2_000), submit(2, 2_001, 'high')], q.ctx);
    const testing = (n: number) => together.snapshot.entries.find((e) => e.prNumber === n)!.runId !== null;
    expect([testing(1), testing(2)]).toEqual([false, true]);
    expect(together.effects.filter((e) => e.kind === 'createTestBranch')).toHaveLength(1);

    // One decision per request instead: PR 1's run has started by the time PR 2 arrives, and keeps the slot.
    const apart = new QueueDriver({ concurrency: 1 });
    apart.send(submit(1, 2_000));
    apart.send(submit(2, 2_001, 'high'));
    const apartTesting = (n: number) => apart.snapshot.entries.find((e) => e.prNumber === n)!.runId !== null;
    expect([apartTesting(1), apartTesting(2)]).toEqual([true, false]);
  });

  it('a rejected event changes nothing and the others still apply', () => {
    const q = new QueueDriver({ concurrency: 1 });
    q.submit(1);
    q.submit(2);
    const group = decideAll(
      q.snapshot,
      [{ ...cancel(1, 2_999), at: Number.NaN }, cancel(99, 3_000), cancel(2, 3_001)],
      q.ctx,
    );
    expect(group.rejections.map((r) => r?.code ?? null)).toEqual(['INVALID_EVENT', 'PR_NOT_IN_QUEUE', null]);
    expect(group.snapshot.entries.find((e) => e.prNumber === 2)!.stateChangedAt).toBe(3_001);
    const state = (n: number) => group.snapshot.entries.find((e) => e.prNumber === n)!.state;
    expect([state(1), state(2)]).toEqual(['PENDING', 'CANCELLED']);
    expect(group.snapshot.entries.find((e) => e.prNumber === 1)!.runId).not.toBeNull();
  });

  it('when every event is rejected, returns the snapshot it was given and no effects', () => {
    const q = new QueueDriver();
    const group = decideAll(q.snapshot, [cancel(7, 3_000), cancel(8, 3_001)], q.ctx);
    expect(group.snapshot).toBe(q.snapshot);
    expect(group.effects).toEqual([]);
  });

  it('a group of one is the same decision as decide', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    const ids = () => {
      let n = 0;
      return { newId: () => `z${++n}` };
    };
    const one = decide(q.snapshot, submit(2, 5_000), ids());
    const group = decideAll(q.snapshot, [submit(2, 5_000)], ids());
    expect(one.ok && JSON.stringify({ s: one.snapshot, e: one.effects })).toBe(
      JSON.stringify({ s: group.snapshot, e: group.effects }),
    );
  });

  it('groups only the API requests, by the reason they give runs they invalidate', () => {
    expect(groupKey(submit(1, 1))).toBe(groupKey(submit(2, 2)));
    expect(groupKey(submit(1, 1))).not.toBe(groupKey(cancel(1, 1)));
    expect(groupKey({ kind: 'tick', at: 1 } satisfies EngineEvent)).toBeNull();
    const q = new QueueDriver();
    expect(() => decideAll(q.snapshot, [submit(1, 1), cancel(1, 2)], q.ctx)).toThrow(/one group/);
  });
});
