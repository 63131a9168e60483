/**
 * The git side of the fake GitLab: one bare repository (`<root>/<group>/<subgroup>/<name>.git`, as
 * GitLab lays out a project of a subgroup; GitLab's push checks as its pre-receive hook) and what
 * GitLab asks of git: refs (kept in memory, read again after a push), commits as people and GitLab write them, merge trees, ancestry, and the merge
 * methods of the merge API (merge commit, semi-linear, fast-forward, each with or without squash).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { git, runGit } from '../../../src/git/git.js';
import { commitFiles } from '../../helpers/git-commit.js';
import { PRE_RECEIVE } from './fake-gitlab-push-checks.js';

/** GitLab's signature on the commits it makes. */
const GITLAB = { name: 'GitLab', email: 'noreply@gitlab.test' };

export type MergeMethod = 'merge' | 'rebase_merge' | 'ff';

export class FakeGitlabRepo {
  private refs: Promise<Map<string, string>> | null = null;
  private readonly memos = new Map<string, Promise<unknown>>();
  private ticks = 0;

  constructor(
    readonly root: string,
    /** `group/sub/project`. */
    readonly fullPath: string,
    private readonly now: () => number,
  ) {}

  get bare(): string {
    return path.join(this.root, `${this.fullPath}.git`);
  }

  async init(): Promise<void> {
    await git(['init', '--bare', '--quiet', '--initial-branch=main', this.bare]);
    await mkdir(path.join(this.bare, 'hooks'), { recursive: true });
    await writeFile(path.join(this.bare, 'hooks', 'pre-receive'), PRE_RECEIVE, { mode: 0o755 });
  }

  /** Forgets the refs read: a push came in. */
  pushed(): void {
    this.refs = null;
  }

  async commit(parent: string | null, files: Record<string, string | null>, message: string): Promise<string> {
    return commitFiles(this.bare, {
      parent,
      files,
      message,
      author: { name: 'Ada Lovelace', email: 'ada@example.com' },
      committer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      time: this.commitTime(),
    });
  }

  allRefs(): Promise<Map<string, string>> {
    this.refs ??= git(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: this.bare }).then(
      (out) =>
        new Map(out.split('\n').flatMap((line) => (line ? [line.split(' ').reverse() as [string, string]] : []))),
      (err: unknown) => {
        this.refs = null;
        throw err;
      },
    );
    return this.refs;
  }

  async refSha(ref: string): Promise<string | null> {
    return (await this.allRefs()).get(ref) ?? null;
  }

  branchSha(branch: string): Promise<string | null> {
    return this.refSha(`refs/heads/${branch}`);
  }

  async setRef(ref: string, sha: string | null): Promise<void> {
    await git(sha ? ['update-ref', ref, sha] : ['update-ref', '-d', ref], { cwd: this.bare });
    const refs = await this.refs;
    if (sha) refs?.set(ref, sha);
    else refs?.delete(ref);
  }

  setBranch(branch: string, sha: string | null): Promise<void> {
    return this.setRef(`refs/heads/${branch}`, sha);
  }

  async fileAt(rev: string, file: string): Promise<string | null> {
    const out = await runGit(['cat-file', '-p', `${rev}:${file}`], { cwd: this.bare, okCodes: [128] });
    return out.code === 0 ? out.stdout : null;
  }

  async hasCommit(sha: string): Promise<boolean> {
    return (await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd: this.bare, okCodes: [1, 128] })).code === 0;
  }

  isAncestor(ancestor: string, sha: string): Promise<boolean> {
    return this.memo(`is-ancestor ${ancestor} ${sha}`, async () => {
      const out = await runGit(['merge-base', '--is-ancestor', ancestor, sha], { cwd: this.bare, okCodes: [1] });
      return out.code === 0;
    });
  }

  /** The tree of merging `theirs` into `ours` (on `mergeBase`, else their merge base), or null on conflicts. */
  mergeTree(ours: string, theirs: string, mergeBase?: string): Promise<string | null> {
    return this.memo(`merge-tree ${mergeBase ?? ''} ${ours} ${theirs}`, async () => {
      const out = await runGit(
        ['merge-tree', '--write-tree', ...(mergeBase ? [`--merge-base=${mergeBase}`] : []), ours, theirs],
        { cwd: this.bare, okCodes: [1] },
      );
      return out.code === 0 ? out.stdout.trim().split('\n')[0]! : null;
    });
  }

  treeOf(sha: string): Promise<string> {
    return this.memo(`tree ${sha}`, async () => (await git(['rev-parse', `${sha}^{tree}`], { cwd: this.bare })).trim());
  }

  /**
   * The target's new tip when GitLab merges `head` into `target` by `method`, squashed or not, or why
   * it cannot: `conflict` (the trees clash), `need_rebase` (fast-forward and semi-linear methods need
   * the target in the head's history).
   */
  async merge(
    method: MergeMethod,
    squash: boolean,
    target: string,
    head: string,
    title: string,
  ): Promise<string | 'conflict' | 'need_rebase'> {
    if (method !== 'merge' && !(await this.isAncestor(target, head))) return 'need_rebase';
    const tree = await this.mergeTree(target, head);
    if (!tree) return 'conflict';
    const tip = squash ? await this.commitTree(tree, [target], title) : head;
    if (method === 'ff') return tip;
    return this.commitTree(tree, [target, tip], `Merge branch into target\n\n${title}`);
  }

  async commitTree(tree: string, parents: string[], message: string): Promise<string> {
    const date = `@${this.commitTime()} +0000`;
    return git(['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p])], {
      cwd: this.bare,
      input: message.endsWith('\n') ? message : `${message}\n`,
      env: {
        GIT_AUTHOR_NAME: GITLAB.name,
        GIT_AUTHOR_EMAIL: GITLAB.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: GITLAB.name,
        GIT_COMMITTER_EMAIL: GITLAB.email,
        GIT_COMMITTER_DATE: date,
      },
    });
  }

  /** The date of the next commit written (seconds): the fake's clock, a second later each time. */
  private commitTime(): number {
    return Math.floor(this.now() / 1000) + ++this.ticks;
  }

  private memo<T>(key: string, answer: () => Promise<T>): Promise<T> {
    let found = this.memos.get(key) as Promise<T> | undefined;
    if (!found) {
      found = answer();
      this.memos.set(key, found);
      found.catch(() => this.memos.delete(key));
    }
    return found;
  }
}
