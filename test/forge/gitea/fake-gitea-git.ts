/**
 * The repository of the fake of Gitea and Forgejo (fake-gitea-api.ts): a real bare git repository
 * under `<root>/<owner>/<name>.git`, served over git's smart HTTP protocol through `git http-backend`.
 *
 * Git processes only where git must work: the refs are kept in memory (read once, kept in step with
 * the fake's own writes through `setRef`, read again after a push), and answers about commits, which
 * never change (merge base, merge tree, ancestry), are asked of git once per repository (`memo`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { git, runGit } from '../../../src/git/git.js';
import { commitFiles } from '../../helpers/git-commit.js';
import { gitHttpAnswer } from '../../helpers/git-http-backend.js';
import { GITEA } from './fake-gitea-model.js';

export class BareRepository {
  /** The repository's refs as last read (`allRefs`), or null: read them again. */
  private refs: Promise<Map<string, string>> | null = null;
  /** Git's answers that never change (about objects, the server's capabilities), by question (`memo`). */
  private readonly memos = new Map<string, Promise<unknown>>();

  constructor(
    /** The folder that holds `<owner>/<name>.git` (git's `GIT_PROJECT_ROOT`). */
    readonly root: string,
    readonly owner: string,
    readonly name: string,
    /** The date of the next commit written (seconds since the epoch). */
    private readonly commitTime: () => number,
  ) {}

  get bare(): string {
    return path.join(this.root, this.owner, `${this.name}.git`);
  }

  async init(): Promise<void> {
    await git(['init', '--bare', '--quiet', '--initial-branch=main', this.bare]);
  }

  /** A commit on `parent` (null: a root commit) setting or (null) deleting files; its sha. */
  async commit(parent: string | null, files: Record<string, string | null>, message: string): Promise<string> {
    return commitFiles(this.bare, {
      parent,
      files,
      message,
      author: { name: 'Ada Lovelace', email: 'ada@example.com' },
      committer: GITEA,
      time: this.commitTime(),
    });
  }

  /** The sha `ref` (a full ref name: `refs/heads/main`) points to, or null. */
  async refSha(ref: string): Promise<string | null> {
    return (await this.allRefs()).get(ref) ?? null;
  }

  /**
   * Every ref of the repository (name → sha), read with one `git for-each-ref` and then kept: the fake
   * writes its refs through `setRef`, which keeps this in step, and forgets it when a push came in.
   */
  private allRefs(): Promise<Map<string, string>> {
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

  async setRef(ref: string, sha: string | null): Promise<void> {
    await git(sha ? ['update-ref', ref, sha] : ['update-ref', '-d', ref], { cwd: this.bare });
    const refs = await this.refs;
    if (sha) refs?.set(ref, sha);
    else refs?.delete(ref);
  }

  /** Git's answer that never changes, asked once per question. */
  private memo<T>(key: string, answer: () => Promise<T>): Promise<T> {
    let found = this.memos.get(key) as Promise<T> | undefined;
    if (!found) {
      found = answer();
      this.memos.set(key, found);
      found.catch(() => this.memos.delete(key));
    }
    return found;
  }

  async fileAt(rev: string, file: string): Promise<string | null> {
    const out = await runGit(['cat-file', '-p', `${rev}:${file}`], { cwd: this.bare, okCodes: [128] });
    return out.code === 0 ? out.stdout : null;
  }

  async isAncestor(ancestor: string, sha: string): Promise<boolean> {
    return this.memo(`is-ancestor ${ancestor} ${sha}`, async () => {
      const out = await runGit(['merge-base', '--is-ancestor', ancestor, sha], { cwd: this.bare, okCodes: [1] });
      return out.code === 0;
    });
  }

  /** Whether the repository holds commit `sha`. */
  async hasCommit(sha: string): Promise<boolean> {
    return (await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd: this.bare, okCodes: [1, 128] })).code === 0;
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

  mergeBase(a: string, b: string): Promise<string> {
    return this.memo(`merge-base ${a} ${b}`, async () => {
      return (await runGit(['merge-base', a, b], { cwd: this.bare, okCodes: [1] })).stdout.trim();
    });
  }

  async commitTree(tree: string, parents: string[], message: string): Promise<string> {
    const date = `@${this.commitTime()} +0000`;
    return git(['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p])], {
      cwd: this.bare,
      input: message.endsWith('\n') ? message : `${message}\n`,
      env: {
        GIT_AUTHOR_NAME: GITEA.name,
        GIT_AUTHOR_EMAIL: GITEA.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: GITEA.name,
        GIT_COMMITTER_EMAIL: GITEA.email,
        GIT_COMMITTER_DATE: date,
      },
    });
  }

  /**
   * Answers a request of git's smart HTTP protocol for `rest` (`/info/refs`, `/git-upload-pack`,
   * `/git-receive-pack`) as `user`, who is already let in.
   */
  async serve(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    raw: Buffer,
    rest: string,
    user: string,
  ): Promise<void> {
    const protocol = String(req.headers['git-protocol'] ?? '');
    // In protocol v2 the fetch advertisement names the server's capabilities, not its refs: the same
    // answer for the server's whole life.
    const answer = () =>
      gitHttpAnswer({ req, url, body: raw, root: this.root, pathInfo: `/${this.owner}/${this.name}.git${rest}`, user });
    const { status, headers, body } =
      req.method === 'GET' &&
      rest === '/info/refs' &&
      url.search === '?service=git-upload-pack' &&
      protocol === 'version=2'
        ? await this.memo('upload-pack v2 advertisement', answer)
        : await answer();
    // A push may have changed any ref: the refs kept in memory are read again.
    if (rest === '/git-receive-pack') this.refs = null;
    res.writeHead(status, headers).end(body);
  }
}
