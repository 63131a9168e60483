/**
 * A PR's stack: the queued PRs chained by their branches, each based on the head branch of the one
 * below it (GitHub's native stacks, or plain stacked branches on any forge). The bottom one is based
 * on the queue's branch (or on a branch no queued PR has as its head); the layers above wait until
 * they are retargeted onto it, so the stack lands bottom-up.
 */
import { type Entry, isTerminal } from './types.js';

/** The PR numbers of the stack PR `n` is in, bottom first, itself included; empty when it is in none. */
export function stackOf(entries: readonly Entry[], n: number): number[] {
  const queued = entries.filter((e) => !isTerminal(e.state));
  const self = queued.find((e) => e.prNumber === n);
  if (!self) return [];
  const stack = [self];
  for (let e: Entry | undefined = self; e; ) {
    const base: string = e.baseBranch;
    e = queued.find((x) => x.headBranch === base && !stack.includes(x));
    if (e) stack.unshift(e);
  }
  for (let e: Entry | undefined = self; e?.headBranch !== undefined; ) {
    const head: string = e.headBranch;
    e = queued.filter((x) => x.baseBranch === head && !stack.includes(x)).sort((a, b) => a.prNumber - b.prNumber)[0];
    if (e) stack.push(e);
  }
  return stack.length > 1 ? stack.map((e) => e.prNumber) : [];
}
