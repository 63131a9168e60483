/**
 * An in-memory, stateful forge for tests (the simulator has a lighter one, SimulatedForge).
 *
 * A commit is modelled as (parent, the ordered list of PR heads merged since the root), so a test can
 * read what any branch contains. Every repository's state is open for inspection (`state()`), so tests
 * can assert the whole forge after each step. Failures are injected explicitly.
 *
 * It behaves as the forge contract (test/contract/) says every forge does: in-memory-world.ts runs
 * the contract's scenarios against it in the quick loop.
 */
import { createHash } from 'node:crypto';
import type { PrInfo, RunPr } from '../../src/engine/types.js';
import type { AdvanceResult, BuildResult, ForgePort, RepoBinding } from '../../src/forge/port.js';

export interface InMemoryCommit {
  sha: string;
  parent: string | null;
  /** Every PR head this commit contains, oldest first. */
  prs: RunPr[];
}

export interface InMemoryPr extends PrInfo {
  state: 'open' | 'closed' | 'merged';
}

export interface InMemoryRepoState {
  branches: Map<string, string>;
  commits: Map<string, InMemoryCommit>;
  prs: Map<number, InMemoryPr>;
  /** PR numbers whose heads conflict with whatever comes before them in a test commit. */
  conflicting: Set<number>;
  /** CI workflow runs by id: the head they run on, whether from a fork, whether still running. */
  workflowRuns: Map<string, { headSha: string; fromFork: boolean; running: boolean }>;
  /** Comments greenline posted on each PR (its answers to commands), oldest first. */
  comments: Map<number, string[]>;
}

export type InMemoryForgeOperation =
  | 'getPullRequest'
  | 'getBranchSha'
  | 'createTestBranch'
  | 'deleteBranch'
  | 'advanceTarget';

const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');
const repoKey = (b: RepoBinding): string => `${b.repo.host}/${b.repo.owner}/${b.repo.name}`;

export class InMemoryForge implements ForgePort {
  private readonly repos = new Map<string, InMemoryRepoState>();
  private readonly injected = new Map<InMemoryForgeOperation, Error[]>();
  /** Every call, in order, as `operation repo args`: for asserting what the service asked. */
  readonly calls: string[] = [];

  /** The state of a repository, created empty (with a root commit on `main`) on first use. */
  state(repo: string): InMemoryRepoState {
    let s = this.repos.get(repo);
    if (!s) {
      const root: InMemoryCommit = { sha: sha1(`root:${repo}`), parent: null, prs: [] };
      s = {
        branches: new Map([['main', root.sha]]),
        commits: new Map([[root.sha, root]]),
        prs: new Map(),
        conflicting: new Set(),
        workflowRuns: new Map(),
        comments: new Map(),
      };
      this.repos.set(repo, s);
    }
    return s;
  }

  /** Opens (or updates) a PR; its head is a commit of its own unless `headSha` is given. */
  openPr(repo: string, pr: Partial<PrInfo> & { number: number }): InMemoryPr {
    const s = this.state(repo);
    const full: InMemoryPr = {
      headSha: sha1(`head:${repo}:${pr.number}:${s.prs.get(pr.number)?.headSha ?? ''}`),
      baseBranch: 'main',
      title: `PR ${pr.number}`,
      author: 'octocat',
      mergeability: 'mergeable',
      ...pr,
      state: 'open',
    };
    s.prs.set(pr.number, full);
    return full;
  }

  /** Pushes a new commit to a PR: its head sha changes. */
  pushToPr(repo: string, number: number): string {
    const pr = this.mustPr(repo, number);
    pr.headSha = sha1(`push:${pr.headSha}`);
    return pr.headSha;
  }

  closePr(repo: string, number: number): void {
    this.mustPr(repo, number).state = 'closed';
  }

  /**
   * Someone merges a PR outside the queue (a squash on the forge's own page): its base branch gets a
   * commit with its head, and the forge reports it merged. Returns the new sha of the base branch.
   */
  mergePr(repo: string, number: number): string {
    const s = this.state(repo);
    const pr = this.mustPr(repo, number);
    const base = s.commits.get(s.branches.get(pr.baseBranch)!)!;
    const head = this.commit(s, base, { number, headSha: pr.headSha });
    s.branches.set(pr.baseBranch, head.sha);
    pr.state = 'merged';
    return head.sha;
  }

  /** Pushes a commit to a branch outside the queue (e.g. an admin merge); returns the new sha. */
  pushToBranch(repo: string, branch: string, label = 'outside'): string {
    const s = this.state(repo);
    const parent = s.branches.get(branch) ?? null;
    const prs = parent ? s.commits.get(parent)!.prs : [];
    const commit: InMemoryCommit = { sha: sha1(`${label}:${parent}:${s.commits.size}`), parent, prs };
    s.commits.set(commit.sha, commit);
    s.branches.set(branch, commit.sha);
    return commit.sha;
  }

  /** PR numbers contained in the commit a branch points at, in merge order. */
  prsOnBranch(repo: string, branch: string): number[] {
    const s = this.state(repo);
    const sha = s.branches.get(branch);
    return sha ? s.commits.get(sha)!.prs.map((p) => p.number) : [];
  }

  /** The next call of `op` throws `error` (a transient failure); several calls queue up. */
  failNext(op: InMemoryForgeOperation, error = new Error(`injected ${op} failure`)): void {
    this.injected.set(op, [...(this.injected.get(op) ?? []), error]);
  }

  /**
   * The fake knows each PR's base branch, so it ignores the queue's target branch. A PR no longer
   * open, closed or merged, is no PR to it (wasMerged tells which).
   */
  async getPullRequest(binding: RepoBinding, number: number, _targetBranch?: string): Promise<PrInfo | null> {
    this.enter('getPullRequest', binding, String(number));
    const pr = this.state(repoKey(binding)).prs.get(number);
    if (pr?.state !== 'open') return null;
    const { state: _state, ...info } = pr;
    return { ...info };
  }

  async wasMerged(binding: RepoBinding, number: number): Promise<boolean> {
    return this.state(repoKey(binding)).prs.get(number)?.state === 'merged';
  }

  async reply(binding: RepoBinding, number: number, body: string): Promise<void> {
    const { comments } = this.state(repoKey(binding));
    comments.set(number, [...(comments.get(number) ?? []), body]);
  }

  async verifyForkCiRun(
    binding: RepoBinding,
    runId: string,
    headSha: string,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    const run = this.state(repoKey(binding)).workflowRuns.get(runId);
    if (!run) return { ok: false, reason: `no workflow run ${runId}` };
    if (!run.fromFork) return { ok: false, reason: `workflow run ${runId} is not for a pull request from a fork` };
    if (!run.running) return { ok: false, reason: `workflow run ${runId} has finished` };
    if (run.headSha !== headSha)
      return { ok: false, reason: `workflow run ${runId} runs on ${run.headSha}, not on ${headSha}` };
    return { ok: true };
  }

  async getBranchSha(binding: RepoBinding, branch: string): Promise<string | null> {
    this.enter('getBranchSha', binding, branch);
    return this.state(repoKey(binding)).branches.get(branch) ?? null;
  }

  async createTestBranch(
    binding: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[] },
  ): Promise<BuildResult> {
    this.enter('createTestBranch', binding, `${req.branch} ${req.baseSha} ${req.prs.map((p) => p.number).join(',')}`);
    const s = this.state(repoKey(binding));
    let acc = s.commits.get(req.baseSha);
    if (!acc)
      return { ok: false, reason: 'START_TEST_RUN_INVALID_EVENT', detail: `unknown base commit ${req.baseSha}` };
    for (const pr of req.prs) {
      if (s.conflicting.has(pr.number)) {
        return {
          ok: false,
          reason: 'START_TEST_RUN_MERGE_CONFLICT',
          detail: `PR #${pr.number} conflicts with the commits before it`,
        };
      }
      acc = this.commit(s, acc, pr);
    }
    s.branches.set(req.branch, acc.sha);
    return { ok: true, sha: acc.sha };
  }

  async deleteBranch(binding: RepoBinding, branch: string): Promise<void> {
    this.enter('deleteBranch', binding, branch);
    this.state(repoKey(binding)).branches.delete(branch);
  }

  async listBranches(binding: RepoBinding, prefix: string): Promise<string[]> {
    return [...this.state(repoKey(binding)).branches.keys()].filter((b) => b.startsWith(prefix));
  }

  async advanceTarget(
    binding: RepoBinding,
    req: {
      targetBranch: string;
      expectedSha: string;
      testSha: string;
      prs: RunPr[];
      method: string;
    },
  ): Promise<AdvanceResult> {
    this.enter('advanceTarget', binding, `${req.targetBranch} ${req.expectedSha} ${req.testSha} ${req.method}`);
    const s = this.state(repoKey(binding));
    const current = s.branches.get(req.targetBranch);
    const expected = s.commits.get(req.expectedSha);
    const tested = s.commits.get(req.testSha);
    if (!expected || !tested) return { ok: false, reason: 'MERGE_REFUSED', detail: 'unknown commit' };
    // Squash and rebase write one commit per PR on the expected head; a merge commit is the tested one.
    let head = expected;
    if (req.method === 'merge_commit') head = tested;
    else for (const pr of req.prs) head = this.commit(s, head, pr);
    // A retried merge whose first attempt landed: the target already is exactly this result.
    if (current === head.sha && current !== req.expectedSha) return { ok: true, newSha: head.sha };
    if (current !== req.expectedSha) {
      return {
        ok: false,
        reason: 'TARGET_MOVED',
        detail: `${req.targetBranch} is at ${current}, not ${req.expectedSha}`,
      };
    }
    for (const pr of req.prs) {
      if (s.prs.get(pr.number)?.headSha !== pr.headSha) {
        return {
          ok: false,
          reason: 'PR_UPDATED_AT_MERGE_TIME',
          detail: `PR #${pr.number} head moved since it was tested`,
        };
      }
    }
    const content = (c: InMemoryCommit, n = c.prs.length) =>
      c.prs
        .slice(0, n)
        .map((p) => `${p.number}@${p.headSha}`)
        .join();
    if (content(head) !== content(tested) || content(tested, expected.prs.length) !== content(expected)) {
      return {
        ok: false,
        reason: 'MERGE_REFUSED',
        detail: 'the merged result differs from the tested commit',
      };
    }
    s.branches.set(req.targetBranch, head.sha);
    for (const pr of req.prs) s.prs.get(pr.number)!.state = 'merged';
    return { ok: true, newSha: head.sha };
  }

  private commit(s: InMemoryRepoState, parent: InMemoryCommit, pr: RunPr): InMemoryCommit {
    const sha = sha1(`${parent.sha}+${pr.number}@${pr.headSha}`);
    const c = s.commits.get(sha) ?? { sha, parent: parent.sha, prs: [...parent.prs, { ...pr }] };
    s.commits.set(sha, c);
    return c;
  }

  private mustPr(repo: string, number: number): InMemoryPr {
    const pr = this.state(repo).prs.get(number);
    if (!pr) throw new Error(`in-memory forge: no PR #${number} in ${repo}`);
    return pr;
  }

  private enter(op: InMemoryForgeOperation, binding: RepoBinding, args: string): void {
    this.calls.push(`${op} ${repoKey(binding)} ${args}`);
    const queued = this.injected.get(op);
    const error = queued?.shift();
    if (error) throw error;
  }
}
