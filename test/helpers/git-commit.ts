/**
 * Commits written straight into a (bare) repository, as tests make them: one `git fast-import`
 * (no worktree, no index) writes the blobs, trees and the commit. Its branch is a scratch ref that
 * the same import deletes again, so the repository's refs are left as they were: the caller points a
 * ref at the commit when it means to.
 */
import { randomUUID } from 'node:crypto';
import { git } from '../../src/git/git.js';

export interface Signature {
  name: string;
  email: string;
}

export interface CommitSpec {
  /** The parent commit; null: a root commit. */
  parent: string | null;
  /** Files set on the parent's tree (mode 100644), or (null) deleted from it. */
  files: Record<string, string | null>;
  /** The message; a final newline is added when missing. */
  message: string;
  author: Signature;
  committer: Signature;
  /** Author and committer date, in seconds since the epoch (UTC). */
  time: number;
}

/** The sha of a new commit of `spec` in the repository at `repo`. */
export async function commitFiles(repo: string, spec: CommitSpec): Promise<string> {
  const data = (text: string): string => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const sign = (s: Signature): string => `${s.name} <${s.email}> ${spec.time} +0000`;
  const scratch = `refs/test-commit/${randomUUID()}`;
  const changes = Object.entries(spec.files).map(([file, content]) => {
    if (/[\n"]/.test(file)) throw new Error(`no such file name in a test commit: ${JSON.stringify(file)}`);
    return content === null ? `D ${file}\n` : `M 100644 inline ${file}\n${data(content)}`;
  });
  const stream = [
    `commit ${scratch}\n`,
    'mark :1\n',
    `author ${sign(spec.author)}\n`,
    `committer ${sign(spec.committer)}\n`,
    data(spec.message.endsWith('\n') ? spec.message : `${spec.message}\n`),
    spec.parent ? `from ${spec.parent}\n` : '',
    ...changes,
    '\n',
    'get-mark :1\n',
    `reset ${scratch}\n`,
    `from ${'0'.repeat(40)}\n\n`,
  ].join('');
  // Its objects stay in the pack it writes: unpacking a few into loose objects would start one more git.
  return git(['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { cwd: repo, input: stream });
}
