/** The simulator's forge: compare-and-swap merges, and the check that a merge is what was tested. */
import { describe, expect, it } from 'vitest';
import { SimulatedForge } from '../../src/sim/simulated-forge.js';

const pr = (n: number) => ({ number: n, headSha: `head-${n}` });

describe('SimulatedForge', () => {
  it('merges a tested commit onto the base it was built on, and onto our own merges of the PRs at its front', () => {
    const forge = new SimulatedForge();
    const root = forge.targetSha();
    const first = forge.createTestBranch('t/1', root, [pr(1)]);
    const second = forge.createTestBranch('t/2', root, [pr(1), pr(2)]);
    const merged = forge.merge(root, first, [pr(1)]);
    expect(merged.ok).toBe(true);
    const target = forge.targetSha();
    expect(target).not.toBe(root);
    expect(forge.merge(target, second, [pr(2)])).toMatchObject({ ok: true });
    expect(forge.invariantBreaches).toBe(0);
  });

  it('refuses a merge when the target moved (compare-and-swap)', () => {
    const forge = new SimulatedForge();
    const root = forge.targetSha();
    const t = forge.createTestBranch('t/1', root, [pr(1)]);
    forge.merge(root, t, [pr(1)]);
    expect(forge.merge(root, t, [pr(1)])).toMatchObject({ ok: false, reason: 'TARGET_MOVED' });
  });

  it('counts a breach when the merged result is not what the run tested', () => {
    const forge = new SimulatedForge();
    const root = forge.targetSha();
    const tested = forge.createTestBranch('t/1', root, [pr(1), pr(2)]);
    forge.merge(root, tested, [pr(2), pr(1)]); // another order: another tree
    expect(forge.invariantBreaches).toBe(1);
    const other = forge.createTestBranch('t/3', forge.targetSha(), [pr(3)]);
    forge.deleteBranch('t/3');
    forge.merge(forge.targetSha(), other, [pr(3)]); // its test commit is gone: nothing vouches for it
    expect(forge.invariantBreaches).toBe(2);
  });
});
