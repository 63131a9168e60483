/**
 * runGit runs git in a process group of its own: Ctrl-C in a terminal signals the whole foreground
 * group, and must reach greenline alone, which then stops and lets its git calls finish — not kill
 * them under its pollers (each killed call was reported as "polling the forge failed").
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { git, runGit } from '../../src/git/git.js';

const groupOf = (pid: number): string =>
  execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim();

describe('runGit', () => {
  it("runs git outside greenline's process group", async () => {
    // A shell alias runs as git's child, in git's process group: it prints that group.
    const theirs = await git(['-c', 'alias.group=!ps -o pgid= -p $$', 'group']);
    expect(theirs.trim()).toMatch(/^\d+$/);
    expect(theirs.trim()).not.toBe(groupOf(process.pid));
  });

  it('answers what git printed, and refuses a failure naming the command and quoting git', async () => {
    expect(await git(['--version'])).toMatch(/^git version /);
    await expect(runGit(['rev-parse', '--verify', 'nope'], { cwd: '/' })).rejects.toThrow(
      /^git rev-parse --verify nope failed \(exit 128\): fatal: /,
    );
  });

  it('ends git after timeoutMs, saying so', async () => {
    await expect(runGit(['-c', 'alias.wait=!sleep 5', 'wait'], { timeoutMs: 200 })).rejects.toThrow(
      /^git -c alias.wait=!sleep 5 wait failed \(did not finish\): no answer within 200 ms/,
    );
  });
});
