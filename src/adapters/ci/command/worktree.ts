/**
 * Checkouts of test commits for the command CI: a detached `git worktree` of the repository's bare
 * mirror (objects shared, nothing cloned), removed when the run ends.
 */
import { rm } from 'node:fs/promises';
import { git, runGit } from '../../forge/git/git.js';

/** Checks `sha` out at `dir`; a directory left over by a crashed run is replaced. */
export async function addWorktree(mirrorDir: string, dir: string, sha: string): Promise<void> {
  await removeWorktree(mirrorDir, dir);
  await git(['worktree', 'add', '--detach', '--quiet', dir, sha], { cwd: mirrorDir });
}

export async function removeWorktree(mirrorDir: string, dir: string): Promise<void> {
  // Double --force: also when the run left untracked files or a lock behind.
  const removed = await runGit(['worktree', 'remove', '--force', '--force', dir], { cwd: mirrorDir, okCodes: [128] });
  if (removed.code !== 0) {
    await rm(dir, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: mirrorDir });
  }
}
