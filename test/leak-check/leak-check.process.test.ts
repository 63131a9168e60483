/**
 * The leak check itself: a fixture that leaves a server, a timer, a child process, a daemon whose
 * shell exited, a CI worktree, a test branch and a temporary directory behind fails, and the report
 * names each; a fixture that stops and removes the same things passes. Each runs in a child vitest
 * with the suite's setup (fixtures/vitest.config.ts).
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { startOf } from './processes.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = path.join(ROOT, 'test', 'leak-check', 'fixtures', 'vitest.config.ts');

interface Outcome {
  code: number;
  output: string;
  pids: number[];
}

let dir: string;
/** The processes the fixtures left running, by pid and start time (a pid alone may be reused). */
const started: { pid: number; start: string | null }[] = [];
/** Temporary directories the leaky fixture did not remove (named in its report). */
const leftDirs = new Set<string>();

async function runFixture(name: string, more: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  dir ??= await makeTempDir('greenline-leak-check-');
  const pidFile = path.join(dir, `${name}.pids`);
  const { LEAK_CHECK_OWNER: _, ...env } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [VITEST, 'run', '--config', CONFIG, `test/leak-check/fixtures/${name}.fixture.ts`],
      { cwd: ROOT, env: { ...env, ...more, LEAK_FIXTURE_PIDS: pidFile, NO_COLOR: '1' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        let pids: number[] = [];
        try {
          pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
        } catch {
          /* the fixture started nothing */
        }
        started.push(...pids.map((pid) => ({ pid, start: startOf(pid) })));
        for (const m of (stdout + stderr).matchAll(/temporary directory (\S+) was not removed/g)) leftDirs.add(m[1]!);
        resolve({ code: err ? Number(err.code) || 1 : 0, output: stdout + stderr, pids });
      },
    );
  });
}

afterAll(async () => {
  // Only the very process the fixture started: once it has exited, its pid may belong to another
  // test's process (pids wrap around at 32768 here).
  for (const { pid, start } of started) if (start !== null && startOf(pid) === start) process.kill(pid, 'SIGKILL');
  for (const left of leftDirs) rmSync(left, { recursive: true, force: true });
  if (dir) await removeTempDir(dir);
});

describe('the leak check', () => {
  test('fails a file that leaves things behind, naming each', async () => {
    const { code, output, pids } = await runFixture('leaky');
    expect(code).not.toBe(0);
    expect(output).toContain('leaky.fixture.ts left things behind');
    expect(output).toMatch(/1 × TCPServerWrap/);
    expect(output).toMatch(/server listening on 127\.0\.0\.1:\d+/);
    expect(output).toMatch(/1 × Timeout/);
    expect(output).toMatch(/1 × ProcessWrap/);
    const [child, daemon] = pids;
    expect(output).toMatch(new RegExp(`child process ${child}: sleep 300`));
    // The daemon's shell exited: it is found by its working directory in the file's temp dir.
    expect(output).toMatch(
      new RegExp(
        `process ${daemon} \\(parent \\d+, group \\d+\\): sleep 301 \\[in .*greenline-leak-fixture-.*\\] is still running`,
      ),
    );
    expect(output).toMatch(
      /test branch greenline-merge\/pr-1\/run-1 on remote .*greenline-leak-fixture-.*\/remote\.git/,
    );
    expect(output).toMatch(/CI worktree .*greenline-leak-fixture-.*\/data\/worktrees\/run-1/);
    expect(output).toMatch(/temporary directory .*greenline-leak-fixture-\S+ was not removed/);
  });

  test('with LEAK_TRACE=1, names the lines that created the server, the timer and the child process', async () => {
    const { code, output } = await runFixture('leaky', { LEAK_TRACE: '1' });
    expect(code).not.toBe(0);
    expect(output).toMatch(/server listening on 127\.0\.0\.1:\d+, started at\n\s+at .*fixtures\/world\.ts:\d+/);
    expect(output).toMatch(/Timeout created at\n\s+at startWorld .*fixtures\/world\.ts:\d+/);
    expect(output).toMatch(/PROCESSWRAP created at\n(\s+at .*\n)*?\s+at startWorld .*fixtures\/world\.ts:\d+/);
  });

  test('passes a file that stops and removes what it started', async () => {
    const { code, output } = await runFixture('tidy');
    expect(output).not.toContain('left things behind');
    expect(code).toBe(0);
  });
});
