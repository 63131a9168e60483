/**
 * Reading commit metadata and writing commits with plumbing only (no work tree, no index).
 *
 * Commits greenline writes are deterministic: the committer is a fixed identity and every date is
 * derived from the parents (the newest parent's committer time), never from the clock. The same
 * inputs therefore give the same sha in every run and on every instance: predictive runs that share
 * a prefix of PRs share its commits, and a retried merge recomputes exactly the commit it pushed.
 * With a signing key they are signed (src/git/signing.ts).
 */
import { git, runGit } from '../../git/git.js';
import { signingArgs, type SigningKey } from '../../git/signing.js';

export interface Identity {
  name: string;
  email: string;
}

/** Who writes greenline's commits, and the key they are signed with (none: unsigned). */
export interface Committer extends Identity {
  signingKey?: SigningKey | null;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** Git's raw date: `<unix seconds> <±hhmm>`. */
  authorDate: string;
  /** Committer time in unix seconds. */
  committerTime: number;
  /** The whole message, exactly as stored. */
  message: string;
}

const FIELDS = ['%H', '%T', '%P', '%an', '%ae', '%ad', '%ct', '%B'];

/** Metadata of each given commit, keyed by sha (one `git log` for all of them). */
export async function readCommits(dir: string, shas: readonly string[]): Promise<Map<string, CommitInfo>> {
  const commits = new Map<string, CommitInfo>();
  if (shas.length === 0) return commits;
  const out = await git(
    ['log', '--no-walk=unsorted', '-z', '--date=raw', `--format=${FIELDS.join('%x00')}`, ...shas, '--'],
    { cwd: dir },
  );
  const f = out.split('\0');
  for (let i = 0; i + FIELDS.length <= f.length; i += FIELDS.length) {
    const [sha, tree, parents, authorName, authorEmail, authorDate, ct, message] = f.slice(i, i + FIELDS.length);
    commits.set(sha, {
      sha,
      tree,
      parents: parents ? parents.split(' ') : [],
      authorName,
      authorEmail,
      authorDate,
      committerTime: Number(ct),
      message,
    });
  }
  return commits;
}

/** The first line of a commit message: what forges show as a title. */
export const subject = (message: string): string => message.split('\n', 1)[0].trim();

export interface NewCommit {
  tree: string;
  parents: string[];
  message: string;
  /** Author of the change; the committer identity when omitted. */
  author?: { name: string; email: string; date: string };
  /** Committer time in unix seconds (derived from the inputs by the caller). */
  time: number;
}

/**
 * Writes a commit object with `commit-tree` and returns its sha, signed with the committer's key when
 * it has one (never by a key of git's own configuration). Signed or not, the same inputs give the
 * same commit with an SSH key (its signatures are deterministic); an OpenPGP signature carries its time.
 */
export async function writeCommit(dir: string, committer: Committer, c: NewCommit): Promise<string> {
  const date = `@${c.time} +0000`;
  const author = c.author ?? { name: committer.name, email: committer.email, date };
  return git([...signingArgs(committer.signingKey ?? null), c.tree, ...c.parents.flatMap((p) => ['-p', p])], {
    cwd: dir,
    input: c.message.endsWith('\n') ? c.message : `${c.message}\n`,
    env: {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: rawToGitDate(author.date),
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: date,
    },
  });
}

/** `1700000000 +0100` (as read) → `@1700000000 +0100`, which git never misreads as another format. */
const rawToGitDate = (raw: string): string => (raw.startsWith('@') ? raw : `@${raw}`);

export type MergeTreeResult = { clean: true; tree: string } | { clean: false; files: string[] };

/** `git merge-tree --write-tree`: a real three-way merge of two commits, in the object store only. */
export async function mergeTree(dir: string, ours: string, theirs: string): Promise<MergeTreeResult> {
  const out = await runGit(['merge-tree', '--write-tree', '-z', '--name-only', ours, theirs], {
    cwd: dir,
    okCodes: [1],
  });
  const [tree, ...rest] = out.stdout.split('\0');
  if (out.code === 0) return { clean: true, tree: tree.trim() };
  // After the tree: conflicted file names, then an empty field, then informational messages.
  const end = rest.indexOf('');
  return { clean: false, files: [...new Set(rest.slice(0, end === -1 ? rest.length : end))] };
}
