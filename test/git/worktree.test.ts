/**
 * Worktrees of one mirror added and removed at the same moment, as the command CI does when several
 * runs start together: every checkout must succeed (git's worktree bookkeeping races otherwise).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorktree, removeWorktree } from '../../src/git/worktree.js';
import { makeGitFixture, type GitFixture } from '../helpers/git-fixture.js';

let fx: GitFixture;
beforeEach(async () => {
  fx = await makeGitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('worktrees of one mirror', () => {
  it('can be added and removed concurrently', async () => {
    const dirs = Array.from({ length: 24 }, (_, i) => path.join(fx.dataDir, 'worktrees', `run-${i}`));
    for (let round = 0; round < 2; round++) {
      const added = await Promise.allSettled(dirs.map((dir) => addWorktree(fx.remote, dir, fx.baseSha)));
      expect(added.filter((r) => r.status === 'rejected')).toEqual([]);
      for (const dir of dirs) expect(await readFile(path.join(dir, 'README.md'), 'utf8')).not.toBe('');
      const removed = await Promise.allSettled(dirs.map((dir) => removeWorktree(fx.remote, dir)));
      expect(removed.filter((r) => r.status === 'rejected')).toEqual([]);
    }
  });
});
