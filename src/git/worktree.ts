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
 *
 * A process killed during a run leaves its work tree and its registration (`<mirror>/worktrees/<id>`,
 * locked while `git worktree add` was under way) behind: `removeLeftoverWorktrees` removes them.
 */
import { readdir, readFile, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, runGit } from './git.js';
import { changeOneAtATime } from './mirror.js';

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

/**
 * Removes the work trees under `root` that `keep` does not claim (by their name, the run id), with
 * their registrations in the mirrors at `mirrorDirs`, and prunes the registrations whose work tree is
 * gone. Each mirror's registrations are changed in its turn (changeOneAtATime), so a run adding its
 * work tree meanwhile is not disturbed. Returns the names of the work trees removed.
 */
export async function removeLeftoverWorktrees(
  root: string,
  mirrorDirs: readonly string[],
  keep: (name: string) => boolean,
): Promise<string[]> {
  const removed = new Set<string>();
  const rootDir = await realpath(root).catch(() => path.resolve(root));
  for (const mirrorDir of mirrorDirs) {
    await changeOneAtATime(mirrorDir, async () => {
      const registrations = path.join(mirrorDir, 'worktrees');
      for (const id of await namesIn(registrations)) {
        // gitdir: `<work tree>/.git`; missing when `add` was killed before writing it (the entry is
        // locked then, which `prune` respects): nothing is being added now, so such an entry is left over.
        const gitdir = await readFile(path.join(registrations, id, 'gitdir'), 'utf8').then(
          (t) => t.trim(),
          () => null,
        );
        const dir = gitdir === null ? null : path.dirname(gitdir);
        if (dir !== null && (path.dirname(dir) !== rootDir || keep(path.basename(dir)))) continue;
        if (dir !== null) {
          await rm(dir, { recursive: true, force: true });
          removed.add(path.basename(dir));
        }
        await rm(path.join(registrations, id), { recursive: true, force: true });
      }
      await git(['worktree', 'prune'], { cwd: mirrorDir });
    });
  }
  for (const name of await namesIn(rootDir)) {
    if (keep(name)) continue;
    await rm(path.join(rootDir, name), { recursive: true, force: true });
    removed.add(name);
  }
  return [...removed];
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
