/**
 * A synchronous in-memory forge for the simulator (a fake: never used by `greenline serve`).
 *
 * Commits are modelled by their content only: a fingerprint chained over every PR head merged on top
 * of the root, in order (`extend`). Building a test branch extends its base; a merge is a
 * compare-and-swap of the target branch. Each merge also checks the queue's promise: the target after
 * the merge has exactly the content the merged run tested (DESIGN §3 "Invariant"). A breach is counted,
 * not thrown, so a simulation reports it next to its figures.
 *
 * The tests' forge (`InMemoryForge`, test/doubles/in-memory-forge.ts) keeps every commit's full PR list and answers
 * asynchronously; at 10,000 PRs that is quadratic memory, hence this lighter one.
 */
import type { RunPr } from '../engine/index.js';

export type MergeOutcome = { ok: true; newSha: string } | { ok: false; reason: 'TARGET_MOVED'; detail: string };

export class SimulatedForge {
  /** Content fingerprint of every commit by sha. */
  private readonly content = new Map<string, string>();
  private readonly branches = new Map<string, string>();
  private commits = 0;
  /** Merges whose result differs from what was tested. */
  invariantBreaches = 0;

  constructor(readonly targetBranch = 'main') {
    const root = 'root';
    this.content.set(root, 'root');
    this.branches.set(targetBranch, root);
  }

  /** Takes over another forge's commits and branches (a simulation's fork). */
  copyFrom(other: SimulatedForge): void {
    this.content.clear();
    this.branches.clear();
    for (const [sha, c] of other.content) this.content.set(sha, c);
    for (const [b, sha] of other.branches) this.branches.set(b, sha);
    this.commits = other.commits;
  }

  targetSha(): string {
    return this.branches.get(this.targetBranch)!;
  }

  createTestBranch(branch: string, baseSha: string, prs: readonly RunPr[]): string {
    const base = this.content.get(baseSha);
    if (base === undefined) throw new Error(`simulated forge: unknown base commit ${baseSha}`);
    const sha = `c${++this.commits}`;
    this.content.set(sha, prs.reduce(extend, base));
    this.branches.set(branch, sha);
    return sha;
  }

  deleteBranch(branch: string): void {
    const sha = this.branches.get(branch);
    this.branches.delete(branch);
    // Test commits nobody points at any more are forgotten, to keep memory flat over long runs.
    if (sha !== undefined && sha !== this.targetSha()) this.content.delete(sha);
  }

  /** Advances the target from exactly `expectedSha` to a commit with the content `prs` give it. */
  merge(expectedSha: string, testSha: string, prs: readonly RunPr[]): MergeOutcome {
    const current = this.targetSha();
    if (current !== expectedSha) return { ok: false, reason: 'TARGET_MOVED', detail: `target is at ${current}` };
    const result = prs.reduce(extend, this.content.get(current)!);
    const tested = this.content.get(testSha);
    if (tested === undefined || tested !== result) this.invariantBreaches++;
    const sha = `m${++this.commits}`;
    this.content.set(sha, result);
    this.branches.set(this.targetBranch, sha);
    return { ok: true, newSha: sha };
  }
}

/** Content after merging one PR head: a 2×32-bit FNV-1a style fingerprint of (before, head). */
function extend(before: string, pr: RunPr): string {
  const s = `${before}|${pr.number}@${pr.headSha}`;
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  return `${a.toString(16)}${b.toString(16)}`;
}
