/**
 * What the target branch becomes when a tested run merges: the commit to push, per merge method.
 * Nothing here touches the remote; git-forge.ts pushes the result with a compare-and-swap.
 *
 * The tested commit is a chain of merge commits (merge-chain.ts); its last `prs.length` first-parent
 * commits merged `prs`, in order. `pre` is the commit before them: the state the run assumed the
 * target to be in. The plan is sound only when the target (`expectedSha`) has exactly pre's tree —
 * true when it is pre itself, or when earlier PRs of the chain were merged as squash/rebase commits
 * with the same trees. Every method then ends on the tested tree, so the target only ever holds
 * trees that passed CI:
 *
 * | method       | commits pushed on top of expectedSha                                          |
 * |--------------|-------------------------------------------------------------------------------|
 * | merge_commit | none: fast-forward to testSha (if pre = expectedSha and no message differs),  |
 * |              | else the chain's merges re-parented onto expectedSha with the same trees       |
 * | squash       | one commit per PR: tree after that PR in the chain, message "<title> (#N)"     |
 *
 * The merge and squash messages follow the queue's templates and the PRs' own messages
 * (engine/commit-message.ts): a PR's title is its head commit's subject, its description the rest of
 * that message, its co-authors the other authors of its commits.
 * | rebase       | each PR commit replayed (cherry-pick via merge-tree); the tree after each PR   |
 * |              | must equal the chain's, else the merge fails and nothing is pushed              |
 */
import {
  type CommitMessageSettings,
  type CommitPr,
  commitMessageFor,
  gitMessage,
} from '../../engine/commit-message.js';
import type { MergeMethod, RunPr } from '../../engine/types.js';
import type { DescribedPr } from '../port.js';
import { mergeTree, readCommits, subject, writeCommit, type CommitInfo, type Committer } from './commits.js';
import { git } from '../../git/git.js';
import { shortSha } from './merge-chain.js';

export interface AdvanceInput {
  expectedSha: string;
  testSha: string;
  prs: readonly RunPr[];
  method: MergeMethod;
  messages?: CommitMessageSettings | null;
  /** The head branch of a PR, where its ref is a branch. */
  headBranch?: (number: number) => string | undefined;
  /** What the forge's server knows of the PRs, over what their head commits say. */
  described?: ReadonlyMap<number, DescribedPr>;
  /** The PRs' own messages given with their submission, by number. */
  ownMessages?: ReadonlyMap<number, string>;
}

export type AdvancePlan =
  | { ok: true; newSha: string }
  | { ok: false; reason: 'TARGET_MOVED' | 'MERGE_REFUSED'; detail: string };

export async function planAdvance(dir: string, committer: Committer, req: AdvanceInput): Promise<AdvancePlan> {
  const { expectedSha, testSha, prs, method } = req;
  if (prs.length === 0) throw new Error('advanceTarget needs at least one PR to merge');
  const lines = (
    await git(['rev-list', '--first-parent', '--parents', '-n', String(prs.length), testSha], { cwd: dir })
  ).split('\n');
  const chainShas = lines.reverse().map((l) => l.split(' '));
  if (chainShas.length !== prs.length || chainShas.some((c, i) => c.length !== 3 || c[2] !== prs[i].headSha)) {
    throw new Error(
      `tested commit ${shortSha(testSha)} does not end with the merges of ${prs.map((p) => `#${p.number}@${shortSha(p.headSha)}`).join(', ')}`,
    );
  }
  const pre = chainShas[0][1];
  const info = await readCommits(dir, [expectedSha, pre, ...chainShas.map((c) => c[0]), ...prs.map((p) => p.headSha)]);
  const chain = chainShas.map((c) => info.get(c[0])!);
  if (pre !== expectedSha && info.get(pre)!.tree !== info.get(expectedSha)!.tree) {
    return {
      ok: false,
      reason: 'TARGET_MOVED',
      detail: `the tested commit ${shortSha(testSha)} was built on ${shortSha(pre)}, whose content differs from the target at ${shortSha(expectedSha)}; nothing merged`,
    };
  }
  const commitPrs =
    method === 'rebase' ? [] : await Promise.all(prs.map((pr) => commitPrOf(dir, req, pr, info.get(pr.headSha)!, pre)));
  const messageOf = (kind: 'merge' | 'squash', i: number, fallback: string): string =>
    gitMessage(commitMessageFor(kind, req.messages, commitPrs[i]!, commitPrs, split(fallback)));
  const merges = method === 'merge_commit' ? chain.map((c, i) => messageOf('merge', i, c.message)) : [];
  const sameMessages = chain.every((c, i) => merges[i] === c.message);
  if (method === 'merge_commit' && pre === expectedSha && sameMessages) return { ok: true, newSha: testSha };

  let acc: Commit = info.get(expectedSha)!;
  for (const [i, pr] of prs.entries()) {
    const tested = chain[i];
    const head = info.get(pr.headSha)!;
    const time = Math.max(acc.committerTime, tested.committerTime);
    if (method === 'merge_commit') {
      acc = await commit(dir, committer, {
        tree: tested.tree,
        parents: [acc.sha, pr.headSha],
        message: merges[i]!,
        time,
      });
    } else if (method === 'squash') {
      acc = await commit(dir, committer, {
        tree: tested.tree,
        parents: [acc.sha],
        message: messageOf('squash', i, `${subject(head.message)} (#${pr.number})`),
        time,
        author: { name: head.authorName, email: head.authorEmail, date: head.authorDate },
      });
    } else {
      const replayed = await replayPr(dir, committer, acc, pr, tested.parents[0]);
      if (!replayed.ok) return { ok: false, reason: 'MERGE_REFUSED', detail: `${replayed.detail}; nothing merged` };
      acc = replayed.acc;
      if (acc.tree !== tested.tree) {
        return {
          ok: false,
          reason: 'MERGE_REFUSED',
          detail: `rebasing PR #${pr.number} does not reproduce the tested content (its merge commits carry changes); nothing merged`,
        };
      }
    }
  }
  return { ok: true, newSha: acc.sha };
}

/** A message as a title and a body. */
function split(message: string): { title: string; body: string } {
  const [title, ...rest] = message.split('\n');
  return { title: title!.trim(), body: rest.join('\n').trim() };
}

/**
 * What a message may say of a PR: read from its head commit and its commits since `base`, and from
 * what the forge's server knows of it.
 */
async function commitPrOf(
  dir: string,
  req: AdvanceInput,
  pr: RunPr,
  head: CommitInfo,
  base: string,
): Promise<CommitPr> {
  const { title, body } = split(head.message);
  const author = `${head.authorName} <${head.authorEmail}>`;
  const authors = await git(['log', '--no-merges', '--format=%an <%ae>', pr.headSha, `^${base}`, '--'], { cwd: dir });
  const coAuthors = [...new Set(authors.split('\n').filter((a) => a !== '' && a !== author))];
  const headBranch = req.headBranch?.(pr.number);
  return {
    number: pr.number,
    title,
    body,
    author: head.authorName,
    coAuthors,
    ...(headBranch ? { headBranch } : {}),
    ...req.described?.get(pr.number),
    ...(req.ownMessages?.has(pr.number) ? { message: req.ownMessages.get(pr.number)! } : {}),
  };
}

type Commit = Pick<CommitInfo, 'sha' | 'tree' | 'committerTime'>;

async function commit(dir: string, committer: Committer, c: Parameters<typeof writeCommit>[2]): Promise<Commit> {
  return { sha: await writeCommit(dir, committer, c), tree: c.tree, committerTime: c.time };
}

/**
 * Cherry-picks the PR's own commits (not in `testedBase`, merges skipped as `git rebase` does) onto
 * `onto`. git 2.39's merge-tree has no --merge-base, so each pick merges `c` with a throwaway commit
 * holding onto's tree whose only parent is c's parent: their merge base is then c's parent, which
 * makes the three-way merge exactly a cherry-pick.
 */
async function replayPr(
  dir: string,
  committer: Committer,
  onto: Commit,
  pr: RunPr,
  testedBase: string,
): Promise<{ ok: true; acc: Commit } | { ok: false; detail: string }> {
  const list = await git(['rev-list', '--reverse', '--topo-order', '--no-merges', pr.headSha, `^${testedBase}`, '--'], {
    cwd: dir,
  });
  const shas = list ? list.split('\n') : [];
  const commits = await readCommits(dir, shas);
  let acc = onto;
  for (const sha of shas) {
    const c = commits.get(sha)!;
    if (c.parents.length === 0)
      return { ok: false, detail: `cannot rebase PR #${pr.number}: commit ${shortSha(sha)} has no parent` };
    const time = Math.max(acc.committerTime, c.committerTime);
    const base = await writeCommit(dir, committer, {
      tree: acc.tree,
      parents: [c.parents[0]],
      message: 'greenline: rebase base\n',
      time,
    });
    const merged = await mergeTree(dir, base, sha);
    if (!merged.clean) {
      return {
        ok: false,
        detail: `cannot rebase PR #${pr.number}: commit ${shortSha(sha)} conflicts in ${merged.files.join(', ')}`,
      };
    }
    acc = await commit(dir, committer, {
      tree: merged.tree,
      parents: [acc.sha],
      message: c.message,
      time,
      author: { name: c.authorName, email: c.authorEmail, date: c.authorDate },
    });
  }
  return { ok: true, acc };
}
