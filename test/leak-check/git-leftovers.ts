/**
 * What greenline leaves in a directory when a run is not cleaned up: CI worktrees
 * (`<data dir>/worktrees/<run id>`), their registrations in a mirror (`<mirror>.git/worktrees/<id>`)
 * and test branches (`greenline-merge/…`, any prefix starting so) on a bare remote. Mirrors
 * (`<data dir>/repos/<host>/<owner>/<name>.git`) copy the remote's branches, so only bare repositories
 * outside a `repos` folder are asked for branches.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAX_DEPTH = 6;

const isBareRepo = (dir: string): boolean =>
  existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects')) && existsSync(path.join(dir, 'refs'));

async function entries(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function testBranches(repo: string): Promise<string[]> {
  try {
    const { stdout } = await run('git', ['for-each-ref', '--format=%(refname:lstrip=2)', 'refs/heads/'], { cwd: repo });
    return stdout.split('\n').filter((b) => b.startsWith('greenline-merge'));
  } catch {
    return []; // removed meanwhile, or not a repository after all
  }
}

/** Leftovers under `root`, each in words naming its path. */
export async function gitLeftovers(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number, inMirrors: boolean): Promise<void> => {
    if (isBareRepo(dir)) {
      for (const id of await entries(path.join(dir, 'worktrees')))
        found.push(`worktree registration ${path.join(dir, 'worktrees', id)}`);
      if (!inMirrors) for (const b of await testBranches(dir)) found.push(`test branch ${b} on remote ${dir}`);
      return;
    }
    const names = await entries(dir);
    if (names.includes('worktrees') && names.includes('repos')) {
      for (const id of await entries(path.join(dir, 'worktrees')))
        found.push(`CI worktree ${path.join(dir, 'worktrees', id)}`);
    }
    if (depth >= MAX_DEPTH) return;
    for (const name of names) {
      if (name === 'node_modules' || name === '.git' || name === 'worktrees') continue;
      const child = path.join(dir, name);
      if ((await entries(child)).length > 0) await walk(child, depth + 1, inMirrors || name === 'repos');
    }
  };
  await walk(root, 0, false);
  return found;
}
