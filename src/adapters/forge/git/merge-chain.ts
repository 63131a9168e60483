/**
 * The test commit: a base with PR heads merged one after the other, built without a work tree —
 * `git merge-tree --write-tree <acc> <head>` for the merged tree, then `git commit-tree` for a merge
 * commit (parents: the accumulator, the PR head). Benchmarked against checkout + `git merge` in
 * bench/git.bench.ts.
 */
import type { RunPr } from '../../../engine/types.js';
import { mergeTree, readCommits, subject, writeCommit, type Identity } from './commits.js';
import { GitError } from './git.js';

export type ChainResult =
  | { ok: true; sha: string }
  | { ok: false; detail: string };

export const shortSha = (sha: string): string => sha.slice(0, 7);

/** The commit message of the merge of one PR into the chain (it becomes history under merge_commit). */
export const mergeMessage = (number: number, title: string): string => `Merge pull request #${number}: ${title}\n`;

export async function buildMergeChain(dir: string, committer: Identity, baseSha: string, prs: readonly RunPr[]): Promise<ChainResult> {
  const info = await readCommits(dir, [baseSha, ...prs.map((p) => p.headSha)]);
  let acc = baseSha;
  let accTime = info.get(baseSha)!.committerTime;
  for (const [i, pr] of prs.entries()) {
    const head = info.get(pr.headSha)!;
    const mergedBefore = [`base ${shortSha(baseSha)}`, ...prs.slice(0, i).map((p) => `PR #${p.number}`)].join(' + ');
    let merged;
    try {
      merged = await mergeTree(dir, acc, pr.headSha);
    } catch (err) {
      if (err instanceof GitError && /unrelated histories/.test(err.stderr)) {
        return { ok: false, detail: `PR #${pr.number} has no history in common with ${mergedBefore}` };
      }
      throw err;
    }
    if (!merged.clean) {
      return { ok: false, detail: `PR #${pr.number} conflicts with ${mergedBefore}: files ${merged.files.join(', ')}` };
    }
    const time = Math.max(accTime, head.committerTime);
    acc = await writeCommit(dir, committer, {
      tree: merged.tree, parents: [acc, pr.headSha], message: mergeMessage(pr.number, subject(head.message)), time,
    });
    accTime = time;
  }
  return { ok: true, sha: acc };
}
