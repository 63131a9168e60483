/**
 * Signing the commits greenline writes with git's own signing (`gpg.format`, `user.signingKey`,
 * `commit-tree -S`), never with a key of git's own configuration: the server setting gitSigningKey.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { GitError, git } from './git.js';

/**
 * A key git signs commits with: for `ssh` a private key file (or a public key whose private key
 * ssh-agent holds), for `openpgp` a key of the gpg keyring of the user greenline runs as.
 */
export interface SigningKey {
  format: 'ssh' | 'openpgp';
  key: string;
}

/** git's arguments up to and including `commit-tree`, signing with `key` (null: unsigned). */
export const signingArgs = (key: SigningKey | null): string[] =>
  key
    ? ['-c', `gpg.format=${key.format}`, '-c', `user.signingKey=${key.key}`, 'commit-tree', '-S']
    : ['commit-tree', '--no-gpg-sign'];

/** git's empty tree, which every repository knows without storing it. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * Why git cannot sign commits with `key`, in words that say what to change (the setting
 * gitSigningKey), or null when it can: a commit is signed with it in a scratch repository.
 */
export async function checkSigningKey(key: SigningKey): Promise<string | null> {
  if (key.format === 'ssh' && !isAbsolute(key.key) && !key.key.startsWith('~/') && !key.key.startsWith('key::'))
    return `gitSigningKey "${key.key}" is not an absolute path: give the absolute path of the SSH key file (or ~/…), as greenline signs in other directories`;
  const dir = await mkdtemp(join(tmpdir(), 'greenline-signing-'));
  try {
    await git(['init', '--quiet', '--bare', dir]);
    await git([...signingArgs(key), EMPTY_TREE], {
      cwd: dir,
      input: 'greenline: signing check\n',
      env: {
        GIT_AUTHOR_NAME: 'greenline',
        GIT_AUTHOR_EMAIL: 'greenline@localhost',
        GIT_COMMITTER_NAME: 'greenline',
        GIT_COMMITTER_EMAIL: 'greenline@localhost',
      },
    });
    return null;
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    const why = err.stderr.trim().split('\n').slice(0, 3).join(' ');
    const fix =
      key.format === 'ssh'
        ? 'give the path of a private SSH key file without a passphrase (or of a public key whose private key ssh-agent holds)'
        : 'give the id of a key of the gpg keyring of the user greenline runs as, usable without a passphrase prompt';
    return `git cannot sign commits with gitSigningKey "${key.key}" (gitSigningFormat ${key.format}): ${why}; ${fix}, or unset gitSigningKey to write unsigned commits`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
