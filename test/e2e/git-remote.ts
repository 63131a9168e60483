/**
 * A real bare git repository in a temp dir, playing the forge's remote for end-to-end tests: `main`
 * holds an initial commit, and PR `n` is a commit on it published at `refs/pull/n/head` (the git
 * forge's default PR ref pattern). Commits are written straight into the bare repo (helpers/git-commit.ts),
 * which is what a developer's push leaves there.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { commitFiles } from '../helpers/git-commit.js';

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Dev One',
  GIT_AUTHOR_EMAIL: 'dev.one@example.com',
  GIT_COMMITTER_NAME: 'Dev One',
  GIT_COMMITTER_EMAIL: 'dev.one@example.com',
};

/** Runs git in `cwd` with `input` on its stdin; resolves to its trimmed stdout. */
function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd, env: { ...process.env, ...IDENTITY, ...env } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`git ${args.join(' ')} failed: ${stderr || err.message}`));
        else resolve(stdout.trim());
      },
    );
    // A git that exits without reading its input closes the pipe; its exit code tells what happened.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(input);
  });
}

export interface TargetCommit {
  sha: string;
  tree: string;
  subject: string;
  /** The PR number of a squash commit (`<title> (#N)`), or null. */
  prNumber: number | null;
}

export class GitRemote {
  private commits = 0;
  /** The commit `main` starts at. */
  initialSha = '';

  private constructor(readonly dir: string) {}

  /** A bare repo at `<root>/remote.git` whose `main` is one commit holding `files`. */
  static async create(root: string, files: Record<string, string>): Promise<GitRemote> {
    const remote = new GitRemote(path.join(root, 'remote.git'));
    await git(root, ['init', '--quiet', '--bare', '--initial-branch=main', remote.dir]);
    remote.initialSha = await remote.commit(null, files, 'Initial commit');
    await remote.git('update-ref', 'refs/heads/main', remote.initialSha);
    return remote;
  }

  git(...args: string[]): Promise<string> {
    return git(this.dir, args);
  }

  /** Writes a commit of `files` on top of `parent` (null: a root commit); returns its sha. */
  commit(parent: string | null, files: Record<string, string>, message: string): Promise<string> {
    const dev = { name: IDENTITY.GIT_AUTHOR_NAME, email: IDENTITY.GIT_AUTHOR_EMAIL };
    // Distinct, increasing dates: commits with the same content still get distinct shas.
    const time = 1_700_000_000 + 60 * ++this.commits;
    return commitFiles(this.dir, { parent, files, message, author: dev, committer: dev, time });
  }

  /** Opens PR `n`: a commit of `files` on `parent` (default: the initial commit), published at its ref. */
  async openPr(n: number, files: Record<string, string>, title: string, parent = this.initialSha): Promise<string> {
    const sha = await this.commit(parent, files, title);
    await this.git('update-ref', `refs/pull/${n}/head`, sha);
    return sha;
  }

  async sha(rev: string): Promise<string> {
    return this.git('rev-parse', '--verify', `${rev}^{commit}`);
  }

  async tree(rev: string): Promise<string> {
    return this.git('rev-parse', '--verify', `${rev}^{tree}`);
  }

  /** Content of a file at a revision, or null when the file is not there. */
  async readFile(rev: string, file: string): Promise<string | null> {
    try {
      return await this.git('show', `${rev}:${file}`);
    } catch {
      return null;
    }
  }

  /** Files at a revision, sorted. */
  async files(rev: string): Promise<string[]> {
    return (await this.git('ls-tree', '-r', '--name-only', rev)).split('\n').filter(Boolean).sort();
  }

  /** The first-parent history of `branch` after the initial commit, oldest first. */
  async targetCommits(branch = 'main'): Promise<TargetCommit[]> {
    const out = await this.git(
      'log',
      '--first-parent',
      '--reverse',
      '--format=%H %T %s',
      `${this.initialSha}..refs/heads/${branch}`,
    );
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha, tree, ...rest] = line.split(' ');
        const subject = rest.join(' ');
        const pr = /\(#(\d+)\)$/.exec(subject);
        return { sha: sha!, tree: tree!, subject, prNumber: pr ? Number(pr[1]) : null };
      });
  }

  /** Branch names on the remote (as `git ls-remote` lists them, without `refs/heads/`). */
  async branches(): Promise<string[]> {
    const out = await this.git('ls-remote', '--heads', this.dir);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[1]!.replace(/^refs\/heads\//, ''));
  }
}
