/**
 * Checkouts of test commits for the command CI: a detached `git worktree` of the repository's bare
 * mirror (objects shared, nothing cloned), removed when the run ends.
 *
 * git's worktree bookkeeping (`$GIT_DIR/worktrees/`) is not safe under concurrent changes: an `add`
 * reads the other worktrees' entries while they are being written ("failed to read
 * worktrees/<id>/commondir"), a `prune` removes the `worktrees` directory when it is empty just as an
 * `add` is about to create its entry in it ("could not create directory of 'worktrees/<id>'"), and a
 * fetch into the mirror fails on a worktree being added. So worktree changes take turns with the
 * mirror's other local changes (changeOneAtATime); the commands run in the worktrees do not.
 */
import { rm } from 'node:fs/promises';
import { git, runGit } from '../../forge/git/git.js';
import { changeOneAtATime } from '../../forge/git/mirror.js';

/** Checks `sha` out at `dir`; a directory left over by a crashed run is replaced. */
export function addWorktree(mirrorDir: string, dir: string, sha: string): Promise<void> {
  return changeOneAtATime(mirrorDir, async () => {
    await remove(mirrorDir, dir);
    await git(['worktree', 'add', '--detach', '--quiet', dir, sha], { cwd: mirrorDir });
  });
}

export function removeWorktree(mirrorDir: string, dir: string): Promise<void> {
  return changeOneAtATime(mirrorDir, () => remove(mirrorDir, dir));
}

async function remove(mirrorDir: string, dir: string): Promise<void> {
  // Double --force: also when the run left untracked files or a lock behind.
  const removed = await runGit(['worktree', 'remove', '--force', '--force', dir], { cwd: mirrorDir, okCodes: [128] });
  if (removed.code !== 0) {
    await rm(dir, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: mirrorDir });
  }
}
