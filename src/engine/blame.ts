/**
 * Blame by evidence: which PR of a failed set most likely broke it, from what the queue's own runs
 * told about each PR's current head (`Entry.evidence`, kept across trips, read only while it is still
 * the PR's head).
 *
 * - A head that passed a run in its group (a main run restarted since, a bisection part, a retry) is
 *   unlikely to be the culprit: only what landed since can break it. Weight 0.2.
 * - A head that failed a run on its own (alone in its group, the failure its own; or judged so by
 *   `bisection_skip_redundant_tests`) and was queued again unchanged is likely to fail again: teams
 *   queue a PR again when they think its failure was a flake. Weight 10.
 * - Any other PR: weight 1. A weight is the odds of being the culprit against a PR nothing is known of.
 *
 * What the queue does with it:
 * - Bisection (bisection.ts) splits a failed set in the two parts that clear the most PRs this
 *   round in expectation: a cut in queue order, or the likeliest culprit on its own; the halves of
 *   contract §6.3 when the weights are equal. So PRs that passed before are tested together, apart
 *   from the likely culprits.
 * - Risk-aware batching (scheduling.ts, eta.ts): a PR whose head failed a run on its own is tested in a
 *   group of its own, as `noBatch` PRs are, so that its likely failure sends no other PR to bisection.
 * Each such choice says why in the PRs' reason (the transition's detail).
 */
import type { Entry, Evidence, TestRun } from './types.js';
import type { Draft } from './draft.js';

const PASSED_WEIGHT = 0.2;
const FAILED_ALONE_WEIGHT = 10;

const evidenceOf = (e: Entry): Evidence | null =>
  e.evidence !== undefined && e.evidence.headSha === e.headSha ? e.evidence : null;

const withEvidence = (e: Entry, change: Partial<Evidence>): Evidence => ({
  ...(evidenceOf(e) ?? { headSha: e.headSha, passed: false, failedAlone: false }),
  ...change,
});

/** Whether the PR's current head failed a run on its own before. */
export const failedAloneBefore = (e: Entry): boolean => evidenceOf(e)?.failedAlone === true;

/** Whether the PR's current head passed a run before. */
export const passedBefore = (e: Entry): boolean => evidenceOf(e)?.passed === true;

/** Whether the PR is tested in a group of its own: asked to be (`noBatch`), or it failed alone before. */
export const testsAlone = (e: Entry): boolean => e.noBatch || failedAloneBefore(e);

/** Why a PR is tested in a group of its own in a queue that batches, when the evidence is why; else null. */
export const whyAlone = (e: Entry): string | null =>
  failedAloneBefore(e) && !e.noBatch
    ? 'tested on its own, not in a batch: this head failed a run on its own before, so a batch with it would likely fail'
    : null;

/** The patch that records a failure of the PR on its own (with a move to FAILED). */
export const failedAlonePatch = (e: Entry): Partial<Entry> => ({ evidence: withEvidence(e, { failedAlone: true }) });

/** A run passed: the PRs of its group passed a run with their current heads. */
export function notePassed(d: Draft, run: TestRun): void {
  const tested = new Set(run.prNumbers);
  for (const p of run.prs) {
    const e = tested.has(p.number) ? d.entry(p.number) : undefined;
    if (!e || e.headSha !== p.headSha || evidenceOf(e)?.passed) continue;
    d.putEntry({ ...e, evidence: withEvidence(e, { passed: true }) });
  }
}

/** The odds, against a PR nothing is known of, that `e` is what broke a failed set it is in. */
export function weightOf(e: Entry): number {
  const ev = evidenceOf(e);
  if (!ev) return 1;
  return (ev.passed ? PASSED_WEIGHT : 1) * (ev.failedAlone ? FAILED_ALONE_WEIGHT : 1);
}

export interface Split {
  parts: [number[], number[]];
  /** Why the split is not plain halves, in words; null when it is. */
  why: string | null;
}

/**
 * Splits a failed set of two or more PRs (in queue order) in two parts, by the evidence on them: the
 * split whose parts clear the most PRs this round, in expectation (a part without the culprit
 * clears its PRs; one culprit, in each PR with odds as its weight). The candidates are the cuts in
 * queue order and the likeliest culprit on its own; equal weights give the halves.
 */
export function splitByEvidence(members: readonly Entry[]): Split {
  const numbers = members.map((m) => m.prNumber);
  const weights = members.map(weightOf);
  const total = weights.reduce((a, b) => a + b, 0);
  const half = Math.ceil(numbers.length / 2);
  const halves: Split = { parts: [numbers.slice(0, half), numbers.slice(half)], why: null };
  if (weights.every((w) => w === weights[0])) return halves;
  const clears = (size: number, weight: number): number => size * (1 - weight / total);
  let cut = half;
  let best = -1;
  let ahead = 0;
  for (let i = 1; i < numbers.length; i++) {
    ahead += weights[i - 1];
    const value = clears(i, ahead) + clears(numbers.length - i, total - ahead);
    if (value > best + 1e-9 || (Math.abs(value - best) <= 1e-9 && i === half)) [best, cut] = [value, i];
  }
  const top = weights.indexOf(Math.max(...weights));
  const alone = clears(1, weights[top]) + clears(numbers.length - 1, total - weights[top]);
  if (numbers.length > 2 && alone > best + 1e-9) {
    const suspect = members[top];
    return {
      parts: [[suspect.prNumber], numbers.filter((n) => n !== suspect.prNumber)],
      why: `#${suspect.prNumber} is tested on its own, the others together: ${because(members)}, so the others most likely pass together`,
    };
  }
  if (cut === half) return halves;
  const parts: [number[], number[]] = [numbers.slice(0, cut), numbers.slice(cut)];
  return {
    parts,
    why: `split into ${list(parts[0])} and ${list(parts[1])}, the parts most likely to pass: ${because(members)}`,
  };
}

const list = (numbers: readonly number[]): string => numbers.map((n) => `#${n}`).join(', ');

/** The evidence on the members, in words. */
function because(members: readonly Entry[]): string {
  const failed = members.filter(failedAloneBefore);
  const passed = members.filter((e) => evidenceOf(e)?.passed && !failedAloneBefore(e));
  const said: string[] = [];
  if (failed.length > 0)
    said.push(
      `${list(failed.map((e) => e.prNumber))} ${failed.length > 1 ? 'each ' : ''}failed a run on its own with the same head before`,
    );
  if (passed.length > 0) said.push(`${list(passed.map((e) => e.prNumber))} passed a run with the same head before`);
  return said.join('; ');
}
