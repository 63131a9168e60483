/**
 * The test commit: a base with PR heads merged one after the other, built without a work tree —
 * `git merge-tree --write-tree <acc> <head>` for the merged tree, then `git commit-tree` for a merge
 * commit (parents: the accumulator, the PR head). Benchmarked against checkout + `git merge` in
 * bench/git.bench.ts. A PR whose merge changes nothing (its changes are already in what it is merged
 * onto) fails the build with START_TEST_RUN_ALREADY_IN_TARGET: it would only add an empty commit.
 */
import type { RunPr } from '../../engine/types.js';
import { mergeTree, readCommits, subject, writeCommit, type Committer, type MergeTreeResult } from './commits.js';
import { GitError } from '../../git/git.js';

export type ChainResult =
  /** `steps`: the commit after each PR was merged, in order (the last is `sha`). */
  | { ok: true; sha: string; steps: string[] }
  | { ok: false; reason: 'START_TEST_RUN_MERGE_CONFLICT' | 'START_TEST_RUN_ALREADY_IN_TARGET'; detail: string };

export const shortSha = (sha: string): string => sha.slice(0, 7);

/** The commit message of the merge of one PR into the chain (it becomes history under merge_commit). */
export const mergeMessage = (number: number, title: string): string => `Merge pull request #${number}: ${title}\n`;

export async function buildMergeChain(
  dir: string,
  committer: Committer,
  baseSha: string,
  prs: readonly RunPr[],
): Promise<ChainResult> {
  const info = await readCommits(dir, [baseSha, ...prs.map((p) => p.headSha)]);
  let acc = baseSha;
  let accTree = info.get(baseSha)!.tree;
  let accTime = info.get(baseSha)!.committerTime;
  const steps: string[] = [];
  for (const [i, pr] of prs.entries()) {
    const head = info.get(pr.headSha)!;
    const mergedBefore = [`base ${shortSha(baseSha)}`, ...prs.slice(0, i).map((p) => `PR #${p.number}`)].join(' + ');
    let merged: MergeTreeResult;
    try {
      merged = await mergeTree(dir, acc, pr.headSha);
    } catch (err) {
      if (err instanceof GitError && /unrelated histories/.test(err.stderr)) {
        return {
          ok: false,
          reason: 'START_TEST_RUN_MERGE_CONFLICT',
          detail: `PR #${pr.number} has no history in common with ${mergedBefore}`,
        };
      }
      throw err;
    }
    if (!merged.clean) {
      return {
        ok: false,
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        detail: `PR #${pr.number} conflicts with ${mergedBefore}: files ${merged.files.join(', ')}`,
      };
    }
    // A merge that changes nothing would become an empty commit on the target: the PR is not merged again.
    if (merged.tree === accTree) {
      return {
        ok: false,
        reason: 'START_TEST_RUN_ALREADY_IN_TARGET',
        detail: `PR #${pr.number} changes nothing: its changes are already in ${mergedBefore} (merged before, or the same as a PR ahead of it)`,
      };
    }
    const time = Math.max(accTime, head.committerTime);
    acc = await writeCommit(dir, committer, {
      tree: merged.tree,
      parents: [acc, pr.headSha],
      message: mergeMessage(pr.number, subject(head.message)),
      time,
    });
    accTree = merged.tree;
    accTime = time;
    steps.push(acc);
  }
  return { ok: true, sha: acc, steps };
}
