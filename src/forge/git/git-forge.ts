/**
 * The git forge: any remote git understands (local path, file://, ssh, https) is a forge whose PRs are
 * refs named by the repository's PR ref pattern (`refs/pull/{n}/head` by default). Everything goes
 * through the real `git` binary on a local bare mirror (mirror.ts).
 *
 * What plain git cannot say, and how it is answered:
 * - A PR's base branch: git has no PR metadata, so the base is the queue's target branch passed by
 *   the caller (the remote's default branch when none is passed).
 * - A PR's title and author: the subject and author name of its head commit.
 * - Mergeability: whether the head merges cleanly onto the target branch (`merge-tree`), and the
 *   conflicting files when it does not.
 * - Closed, draft, reviews: unknown; a PR exists while its ref exists.
 *
 * Reading a PR whose refs did not move costs no process: the mirror answers refs from memory after one
 * look at the remote (mirror.ts), commits never change (their subject and author are kept by sha), and
 * mergeability is kept by (target sha, head sha), so `merge-tree` never runs twice for the same pair.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { PrInfo, RunPr } from '../../engine/types.js';
import type { AdvanceResult, BuildResult, ForgePort, RepoBinding } from '../port.js';
import { planAdvance } from './advance-plan.js';
import {
  type CommitInfo,
  type Committer,
  mergeTree,
  readCommits,
  subject,
  type Identity,
  type MergeTreeResult,
} from './commits.js';
import type { SigningKey } from '../../git/signing.js';
import { GitError, runGit } from '../../git/git.js';
import { buildMergeChain, shortSha } from './merge-chain.js';
import { Mirrors, type Mirror, type PushedRef } from '../../git/mirror.js';

export interface GitForgeOptions {
  dataDir: string;
  logger: Logger;
  /** How long a fetch serves reads (default 2 s): a burst of calls fetches once. */
  fetchTtlMs?: number;
  /** Upper bound of one fetch, push or ls-remote (default 10 minutes). */
  networkTimeoutMs?: number;
  /** Committer of test, squash and rebase commits. */
  committer?: Identity;
  /** The key every commit greenline writes is signed with (the server setting gitSigningKey); none: unsigned. */
  signingKey?: SigningKey | null;
}

type Mergeability = Pick<PrInfo, 'mergeability' | 'unmergeable' | 'alreadyInBase'>;

/** How many commits, and how many (target, head) merge answers, are kept: far more than queued PRs. */
const CACHED = 20_000;

/** A PR's head branch, where its ref is a branch (a --pr-ref-pattern under refs/heads/). */
function headBranchOf(m: Mirror, number: number): string | undefined {
  const ref = m.prRef(number);
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

export class GitForge implements ForgePort {
  private readonly mirrors: Mirrors;
  private readonly logger: Logger;
  private readonly committer: Committer;
  /** Commits read, by sha (a commit never changes). */
  private readonly commits = new LRUCache<string, CommitInfo>({ max: CACHED });
  /** Whether a head merges onto a target, by `<target sha>:<head sha>`. */
  private readonly merges = new LRUCache<string, Mergeability>({ max: CACHED });

  constructor(opts: GitForgeOptions) {
    this.mirrors = new Mirrors({
      dataDir: opts.dataDir,
      fetchTtlMs: opts.fetchTtlMs ?? 2_000,
      networkTimeoutMs: opts.networkTimeoutMs ?? 600_000,
    });
    this.logger = opts.logger;
    this.committer = {
      ...(opts.committer ?? { name: 'greenline', email: 'greenline@localhost' }),
      signingKey: opts.signingKey ?? null,
    };
  }

  /** `targetBranch`: the queue's branch, used as the PR's base and for its mergeability. */
  async getPullRequest(repo: RepoBinding, number: number, targetBranch?: string): Promise<PrInfo | null> {
    if (!Number.isSafeInteger(number) || number < 1) return null;
    const m = this.mirrors.get(repo);
    await m.refresh();
    // A PR pushed moments ago may postdate the reused fetch: look again before saying it does not exist.
    let headSha = await m.resolve(m.prRef(number));
    if (!headSha) {
      await m.refresh(0);
      headSha = await m.resolve(m.prRef(number));
    }
    if (!headSha) return null;
    const baseBranch = targetBranch ?? (await m.defaultBranch()) ?? 'main';
    const head = await this.commit(m, headSha);
    const targetSha = await m.resolve(`refs/heads/${baseBranch}`);
    const headBranch = headBranchOf(m, number);
    return {
      number,
      headSha,
      baseBranch,
      title: subject(head.message),
      author: head.authorName,
      ...(targetSha ? await this.mergeOnto(m, targetSha, headSha) : { mergeability: 'unspecified' as const }),
      ...(headBranch ? { headBranch } : {}),
    };
  }

  refsMoved(repo: RepoBinding): void {
    this.mirrors.get(repo).outdated();
  }

  async getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    const m = this.mirrors.get(repo);
    await m.refresh();
    // A branch pushed moments ago (then a queue created for it) may postdate the reused fetch.
    const sha = await m.resolve(`refs/heads/${branch}`);
    if (sha) return sha;
    await m.refresh(0);
    return m.resolve(`refs/heads/${branch}`);
  }

  async createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[] },
  ): Promise<BuildResult> {
    await assertBranchName(req.branch);
    const m = this.mirrors.get(repo);
    await this.requireCommits(m, [req.baseSha, ...req.prs.map((p) => p.headSha)]);
    const built = await buildMergeChain(m.dir, this.committer, req.baseSha, req.prs);
    if (!built.ok) return { ok: false, reason: built.reason, detail: built.detail };
    // Test branches belong to their run (the name ends with its id): a retry may replace it.
    const [pushed] = await m.push([`+${built.sha}:refs/heads/${req.branch}`]);
    if (pushed?.flag === '!') throw new Error(`the remote refused test branch ${req.branch}: ${pushed.summary}`);
    this.logger.info({ repo: m.dir, branch: req.branch, sha: built.sha }, 'test branch pushed');
    return { ok: true, sha: built.sha, steps: built.steps };
  }

  async changedFiles(repo: RepoBinding, commits: { from: string; to: string }): Promise<string[]> {
    const m = this.mirrors.get(repo);
    await this.requireCommits(m, [commits.from, commits.to]);
    const { stdout } = await runGit(['diff', '--name-only', '--no-renames', '-z', `${commits.from}...${commits.to}`], {
      cwd: m.dir,
    });
    return stdout
      .split('\0')
      .filter((p) => p !== '')
      .sort();
  }

  async deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    await assertBranchName(branch);
    const m = this.mirrors.get(repo);
    let pushed: PushedRef | undefined;
    try {
      [pushed] = await m.push([`:refs/heads/${branch}`]);
    } catch (err) {
      if (!/remote ref does not exist/.test(String(err))) throw err;
    }
    if (pushed?.flag === '!' && !/remote ref does not exist/.test(pushed.summary)) {
      throw new Error(`the remote refused to delete ${branch}: ${pushed.summary}`);
    }
    await m.setLocalRef(`refs/heads/${branch}`, null);
  }

  async listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    const heads = await this.mirrors.get(repo).lsRemoteHeads();
    return heads.filter((b) => b.startsWith(prefix));
  }

  async advanceTarget(repo: RepoBinding, req: Parameters<ForgePort['advanceTarget']>[1]): Promise<AdvanceResult> {
    await assertBranchName(req.targetBranch);
    const m = this.mirrors.get(repo);
    const targetRef = `refs/heads/${req.targetBranch}`;
    const prRefs = req.prs.map((p) => m.prRef(p.number));
    const remote = await m.lsRemote([targetRef, ...prRefs]);

    const moved = req.prs.filter((p, i) => remote.get(prRefs[i]) !== p.headSha);
    if (moved.length > 0) {
      const what = moved.map((p) => {
        const now = remote.get(m.prRef(p.number));
        return `PR #${p.number} is ${now ? `at ${shortSha(now)}` : 'gone'}, not at the tested ${shortSha(p.headSha)}`;
      });
      return { ok: false, reason: 'PR_UPDATED_AT_MERGE_TIME', detail: `${what.join('; ')}; nothing merged` };
    }

    await this.requireCommits(m, [req.expectedSha, req.testSha, ...req.prs.map((p) => p.headSha)]);
    const plan = await planAdvance(m.dir, this.committer, { ...req, headBranch: (n) => headBranchOf(m, n) });
    if (!plan.ok) return plan;
    const targetMoved = (now: string | undefined): AdvanceResult => ({
      ok: false,
      reason: 'TARGET_MOVED',
      detail: `${req.targetBranch} is ${now ? `at ${shortSha(now)}` : 'gone'}, not at ${shortSha(req.expectedSha)}; nothing merged`,
    });
    const current = remote.get(targetRef);
    // Deterministic commits: a retry of a merge that was pushed finds the remote at the same sha, or
    // (when the target moved on since) holding it. Either way the merge is done: an instance that
    // pushed and died before recording it, or a retry after a lost answer, must not report a failure.
    if (current === plan.newSha) return { ok: true, newSha: plan.newSha };
    if (current !== req.expectedSha)
      return (await this.holds(m, current, plan.newSha)) ? { ok: true, newSha: plan.newSha } : targetMoved(current);

    const [pushed] = await m.push(
      [`${plan.newSha}:${targetRef}`],
      [`--force-with-lease=${targetRef}:${req.expectedSha}`],
    );
    if (pushed && pushed.flag !== '!') {
      this.logger.info(
        {
          repo: m.dir,
          target: req.targetBranch,
          from: req.expectedSha,
          to: plan.newSha,
          prs: req.prs.map((p) => p.number),
          method: req.method,
        },
        'target advanced',
      );
      return { ok: true, newSha: plan.newSha };
    }
    // Rejected: by the lease (stale info), by the remote's own old-value check when the target moved
    // during the push (failed to lock), or by a hook. The target's value now tells which.
    const now = (await m.lsRemote([targetRef])).get(targetRef);
    if (now === plan.newSha || (now !== req.expectedSha && (await this.holds(m, now, plan.newSha))))
      return { ok: true, newSha: plan.newSha };
    if (now !== req.expectedSha) return targetMoved(now);
    return {
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: `the remote refused to update ${req.targetBranch}: ${pushed?.summary ?? 'no report'}; nothing merged`,
    };
  }

  /** True when the remote branch at `head` already contains `sha` (head fetched into the mirror as needed). */
  private async holds(m: Mirror, head: string | undefined, sha: string): Promise<boolean> {
    if (!head) return false;
    if ((await m.ensureCommits([head])).length > 0) return false;
    return (await runGit(['merge-base', '--is-ancestor', sha, head], { cwd: m.dir, okCodes: [1] })).code === 0;
  }

  private async requireCommits(m: Mirror, shas: string[]): Promise<void> {
    const missing = await m.ensureCommits(shas);
    if (missing.length > 0) throw new Error(`commits not found on the remote: ${missing.join(', ')}`);
  }

  /** A commit of the mirror, read once. */
  private async commit(m: Mirror, sha: string): Promise<CommitInfo> {
    let info = this.commits.get(sha);
    if (!info) {
      info = (await readCommits(m.dir, [sha])).get(sha)!;
      this.commits.set(sha, info);
    }
    return info;
  }

  /**
   * Whether the head merges cleanly onto the target (the conflicting files when not), and whether that
   * merge would change anything; worked out once per (target, head).
   */
  private async mergeOnto(m: Mirror, targetSha: string, headSha: string): Promise<Mergeability> {
    const key = `${targetSha}:${headSha}`;
    let answer = this.merges.get(key);
    if (!answer) {
      answer = await this.workOutMerge(m, targetSha, headSha);
      this.merges.set(key, answer);
    }
    return answer;
  }

  private async workOutMerge(m: Mirror, targetSha: string, headSha: string): Promise<Mergeability> {
    let merged: MergeTreeResult;
    try {
      merged = await mergeTree(m.dir, targetSha, headSha);
    } catch (err) {
      if (err instanceof GitError && /unrelated histories/.test(err.stderr))
        return { mergeability: 'not_mergeable', unmergeable: { cause: 'conflict' } };
      throw err;
    }
    if (!merged.clean)
      return { mergeability: 'not_mergeable', unmergeable: { cause: 'conflict', files: merged.files } };
    return { mergeability: 'mergeable', alreadyInBase: merged.tree === (await this.commit(m, targetSha)).tree };
  }
}

async function assertBranchName(branch: string): Promise<void> {
  const check = await runGit(['check-ref-format', `refs/heads/${branch}`], { okCodes: [1] });
  if (check.code !== 0 || branch.startsWith('-')) throw new Error(`"${branch}" is not a valid branch name`);
}
