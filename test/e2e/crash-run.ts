/**
 * What the crash tests share: a remote with `count` PRs (every twentieth one, from the seventh, breaks
 * the check), and the checks after a run in which greenline processes were killed: every PR terminal,
 * good ones MERGED and broken ones FAILED, no PR merged twice (on the target or in any instance's
 * transitions), the target holding exactly the good PRs, each tested green on the base it landed on.
 */
import { expect } from 'vitest';
import type { CiScript } from './ci-script.js';
import type { GitRemote } from './git-remote.js';
import type { GreenlineProcess, Transition } from './greenline-process.js';
import type { QueueClient } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { targetHistoryProblems } from './target-history.js';
import type { Json } from '../helpers/json.js';

export const isBroken = (n: number): boolean => n % 20 === 7;

/** `serve` flags of the crash tests: a 3 s lease; the forge polled every 2 s (each poll reads every queued PR). */
export const LEASE_TTL_S = 3;
export const CRASH_SERVE_ARGS = ['--lease-ttl', String(LEASE_TTL_S), '--poll-interval', '2'];

/** Opens PRs 1..count, each adding its own feature file (broken ones: a file the check rejects). */
export async function openPrs(remote: GitRemote, count: number): Promise<number[]> {
  const prs = Array.from({ length: count }, (_, i) => i + 1);
  for (const n of prs)
    await remote.openPr(n, { [`features/pr-${n}.txt`]: isBroken(n) ? 'broken\n' : 'works\n' }, `Feature ${n}`);
  return prs;
}

/** Every transition any of the processes logged (killed ones included: their output was kept). */
export function allTransitions(processes: GreenlineProcess[]): Transition[] {
  return processes.flatMap((p) => p.transitions());
}

/**
 * Waits until every PR of `prs` is terminal: first (one getQueue a poll) until the queue lists none
 * (it does not list NOT_READY ones), then PR by PR. Returns their entries by number.
 */
export async function settleAll(queue: QueueClient, prs: number[], timeoutMs = 150_000): Promise<Map<number, Json>> {
  await waitUntil(
    'the queue to empty',
    timeoutMs,
    async () => ((await queue.call('getQueue')).enqueuedPullRequests.length === 0 ? true : undefined),
    async () =>
      (await queue.call('getQueue')).enqueuedPullRequests.map((e: Json) => `${e.pr?.number ?? e.id} ${e.state}`),
  );
  return queue.settle(prs, 30_000);
}

export async function expectCrashSafe(opts: {
  prs: number[];
  entries: Map<number, Json>;
  remote: GitRemote;
  queue: QueueClient;
  ci: CiScript;
  processes: GreenlineProcess[];
}): Promise<void> {
  const { prs, entries, remote, queue, ci, processes } = opts;
  const good = prs.filter((n) => !isBroken(n));
  expect(Object.fromEntries(prs.map((n) => [n, entries.get(n).state]))).toEqual(
    Object.fromEntries(prs.map((n) => [n, isBroken(n) ? 'FAILED' : 'MERGED'])),
  );
  const onTarget = (await remote.targetCommits()).map((c) => c.prNumber);
  expect(onTarget.length, 'no PR is on the target twice').toBe(new Set(onTarget).size);
  expect([...onTarget].sort((a, b) => a! - b!)).toEqual(good);
  const merges = allTransitions(processes)
    .filter((t) => t.to === 'MERGED')
    .map((t) => t.pr);
  const mergedTwice = merges.filter((pr, i) => merges.indexOf(pr) !== i);
  expect(mergedTwice, 'PRs that became MERGED more than once').toEqual([]);
  expect(await remote.files('main')).toEqual(
    ['check.sh', 'features/base.txt', ...good.map((n) => `features/pr-${n}.txt`)].sort(),
  );
  expect(await targetHistoryProblems(remote, queue, ci.records())).toEqual([]);
}
