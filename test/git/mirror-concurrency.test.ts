/**
 * One mirror used by the forge and the command CI at the same moment: fetches while worktrees of the
 * mirror come and go and our own pushes set local refs. None of them may fail (git races otherwise:
 * "bad object worktrees/<id>/HEAD", "cannot lock ref").
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addWorktree, removeWorktree } from '../../src/git/worktree.js';
import { Mirrors } from '../../src/git/mirror.js';
import { makeGitFixture, type GitFixture } from '../helpers/git-fixture.js';

let fx: GitFixture;
beforeEach(async () => {
  fx = await makeGitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

describe('a mirror used concurrently', () => {
  it('fetches while worktrees are added and removed and local refs are set', async () => {
    const mirror = new Mirrors({ dataDir: fx.dataDir, fetchTtlMs: 0, networkTimeoutMs: 60_000 }).get(fx.binding());
    await mirror.refresh();
    let head = fx.baseSha;
    for (let round = 0; round < 8; round++) {
      const previous = head;
      head = await fx.commit(previous, { 'README.md': `round ${round}\n` }, `round ${round}`);
      await fx.setRef('refs/heads/main', head);
      const work = await Promise.allSettled([
        mirror.refresh(),
        ...[0, 1, 2, 3].map(async (i) => {
          const dir = path.join(fx.dataDir, 'worktrees', `run-${round}-${i}`);
          await addWorktree(mirror.dir, dir, fx.baseSha);
          await removeWorktree(mirror.dir, dir);
        }),
        mirror.setLocalRef('refs/heads/main', previous),
      ]);
      expect(work.filter((r) => r.status === 'rejected')).toEqual([]);
    }
  });
});
