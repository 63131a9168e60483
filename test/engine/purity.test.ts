/**
 * decide's contract: it never mutates its input, keeps the identity of what did not change, and the
 * same snapshot, event and ids always give the same decision.
 */
import { describe, expect, it } from 'vitest';
import { decide, type EngineEvent, type QueueSnapshot } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

function busyQueue(): QueueDriver {
  const q = new QueueDriver({ concurrency: 3 });
  for (const n of [1, 2, 3, 4]) q.submit(n);
  q.built('r1');
  q.built('r2');
  return q;
}

describe('decide', () => {
  it('does not mutate the snapshot it is given', () => {
    const q = busyQueue();
    const frozen = structuredClone(q.snapshot);
    const copy = JSON.stringify(q.snapshot);
    deepFreeze(frozen);
    const d = decide(frozen, { kind: 'ciResult', at: q.now + 1, runId: 'r1', outcome: 'failure' }, q.ctx);
    expect(d.ok).toBe(true);
    expect(JSON.stringify(frozen)).toBe(copy);
  });

  it('keeps the identity of unchanged entries and runs, and replaces changed ones', () => {
    const q = busyQueue();
    const before = q.snapshot;
    q.pass('r2'); // PR 2 passed and PR 4 takes the freed slot; PRs 1 and 3 do not change
    const after = q.snapshot;
    const same = (n: number) =>
      after.entries.find((e) => e.prNumber === n) === before.entries.find((e) => e.prNumber === n);
    expect([1, 2, 3, 4].map(same)).toEqual([true, false, true, false]);
    expect(after.runs.find((r) => r.id === 'r1')).toBe(before.runs.find((r) => r.id === 'r1'));
    expect(after.runs.find((r) => r.id === 'r2')).not.toBe(before.runs.find((r) => r.id === 'r2'));
  });

  it('is deterministic', () => {
    const q = busyQueue();
    const ev: EngineEvent = { kind: 'ciResult', at: q.now + 1, runId: 'r1', outcome: 'failure' };
    const ids = () => {
      let n = 100;
      return { newId: () => `x${++n}` };
    };
    expect(JSON.stringify(decide(q.snapshot, ev, ids()))).toBe(JSON.stringify(decide(q.snapshot, ev, ids())));
  });

  it('a decision round-trips through JSON (the store keeps plain data)', () => {
    const q = busyQueue();
    const stored: QueueSnapshot = JSON.parse(JSON.stringify(q.snapshot));
    const ev: EngineEvent = { kind: 'ciResult', at: q.now + 1, runId: 'r1', outcome: 'success' };
    const ids = () => {
      let n = 0;
      return { newId: () => `y${++n}` };
    };
    expect(JSON.stringify(decide(stored, ev, ids()))).toBe(JSON.stringify(decide(q.snapshot, ev, ids())));
  });

  it('never throws on nonsense', () => {
    const q = busyQueue();
    for (const ev of [
      { kind: 'nope', at: 1 },
      { kind: 'tick' },
      null,
      { kind: 'restart', at: 1, prNumber: 99, reason: 'TESTS_RESTARTED_BY_USER' },
    ]) {
      const d = decide(q.snapshot, ev as never, q.ctx);
      expect(d.ok).toBe(false);
    }
  });
});

function deepFreeze(value: unknown): void {
  if (value && typeof value === 'object') {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
}
