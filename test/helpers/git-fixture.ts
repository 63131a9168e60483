/**
 * Real git repositories for adapter tests: a bare "remote" in a temp dir with a `main` branch, and
 * helpers that write commits straight into it (test/helpers/git-commit.ts, fixed dates) and move
 * its refs the way a developer pushing to it would.
 */
import path from 'node:path';
import { git, runGit } from '../../src/git/git.js';
import type { RepoBinding } from '../../src/forge/port.js';
import { commitFiles } from './git-commit.js';
import { makeTempDir, removeTempDir } from './temp-dir.js';

export interface GitFixture {
  root: string;
  remote: string;
  /** A fresh data dir for a forge or CI under test. */
  dataDir: string;
  /** sha of `main` when the fixture was made: README.md and src/app.txt (lines 1..10). */
  baseSha: string;
  binding(overrides?: Partial<RepoBinding>): RepoBinding;
  /** Writes a commit on `parent` (null = root) setting or (null) deleting files; returns its sha. */
  commit(
    parent: string | null,
    files: Record<string, string | null>,
    message: string,
    author?: string,
  ): Promise<string>;
  /** Points a ref of the remote at a sha (like a push). */
  setRef(ref: string, sha: string): Promise<void>;
  refSha(ref: string): Promise<string | null>;
  /** Opens PR `n`: a commit on `parent` (default: the base) at `refs/pull/n/head`. */
  openPr(
    n: number,
    files: Record<string, string | null>,
    opts?: { parent?: string; title?: string; author?: string },
  ): Promise<string>;
  /** Content of a file at a commit of the remote, or null when absent. */
  readFile(sha: string, file: string): Promise<string | null>;
  tree(sha: string): Promise<string>;
  /** `git log` of the remote, one line per commit: `<sha> <parents…> | <subject> | <author>`. */
  log(rev: string, extra?: string[]): Promise<string[]>;
  cleanup(): Promise<void>;
}

export const APP_LINES = `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\n`;

export async function makeGitFixture(): Promise<GitFixture> {
  const root = await makeTempDir('greenline-git-');
  const remote = path.join(root, 'remote.git');
  await git(['init', '--bare', '--quiet', '--initial-branch=main', remote]);
  let clock = 1_700_000_000;

  const commit: GitFixture['commit'] = async (parent, files, message, author = 'Dev One') => {
    clock += 60;
    const who = { name: author, email: `${author.toLowerCase().replace(/\s+/g, '.')}@example.com` };
    return commitFiles(remote, { parent, files, message, author: who, committer: who, time: clock });
  };
  const setRef = async (ref: string, sha: string): Promise<void> => {
    await git(['update-ref', ref, sha], { cwd: remote });
  };
  const refSha = async (ref: string): Promise<string | null> => {
    try {
      return await git(['rev-parse', '--verify', '--quiet', ref], { cwd: remote });
    } catch {
      return null;
    }
  };

  const baseSha = await commit(null, { 'README.md': 'hello\n', 'src/app.txt': APP_LINES }, 'Initial commit');
  await setRef('refs/heads/main', baseSha);

  return {
    root,
    remote,
    baseSha,
    dataDir: path.join(root, 'data'),
    binding: (overrides = {}) => ({
      id: 'repo-1',
      org: 'acme',
      repo: { host: 'local', owner: 'acme', name: 'widgets' },
      forge: 'git',
      remote,
      prRefPattern: 'refs/pull/{n}/head',
      ciCommand: null,
      testBranchPrefix: 'greenline-merge',
      ...overrides,
    }),
    commit,
    setRef,
    refSha,
    openPr: async (n, files, opts = {}) => {
      const sha = await commit(opts.parent ?? baseSha, files, opts.title ?? `PR ${n}`, opts.author);
      await setRef(`refs/pull/${n}/head`, sha);
      return sha;
    },
    readFile: async (sha, file) => {
      try {
        return (await runGit(['cat-file', 'blob', `${sha}:${file}`], { cwd: remote })).stdout;
      } catch {
        return null;
      }
    },
    tree: (sha) => git(['rev-parse', `${sha}^{tree}`], { cwd: remote }),
    log: async (rev, extra = []) =>
      (await git(['log', '--format=%H %P | %s | %an', ...extra, rev, '--'], { cwd: remote })).split('\n'),
    cleanup: () => removeTempDir(root),
  };
}

/** `src/app.txt` with line `n` (1-based) replaced. */
export const appWithLine = (n: number, text: string, base = APP_LINES): string =>
  base
    .split('\n')
    .map((l, i) => (i === n - 1 ? text : l))
    .join('\n');
