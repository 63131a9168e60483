/**
 * The repository `greenline demo` builds: main holds the project and its test, 15 PRs sit at
 * refs/pull/<n>/head on main, the project's test passes on main and on a passing PR and fails on a
 * breaking one, and the two settings PRs conflict. Checked with git itself, on a real bare repo.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { API, buildDemoRepo, demoPrs, type DemoRepo } from '../../src/demo/demo-repo.js';
import { requireBuilt, runCli } from '../e2e/greenline-process.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

let dir: string;
let repo: DemoRepo;
beforeAll(async () => {
  dir = await makeTempDir('greenline-demo-repo-');
  repo = await buildDemoRepo(dir);
});
afterAll(() => removeTempDir(dir));

/** Checks out `rev` of `of` into a fresh directory and runs the project's test there. */
async function testAtIn(of: DemoRepo, rev: string): Promise<{ code: number; out: string }> {
  const work = await mkdtemp(path.join(dir, 'work-'));
  const checkout = await run(
    'sh',
    ['-c', 'git --git-dir "$0" archive "$1" | tar -x -C "$2"', of.remote, rev, work],
    dir,
  );
  expect(checkout.code, checkout.out).toBe(0);
  return run('sh', ['./test.sh'], work);
}
const testAt = (rev: string) => testAtIn(repo, rev);

describe('the demo repository', () => {
  it('has main and one ref per PR on top of it, with titles and authors', async () => {
    const refs = (await run('git', ['--git-dir', repo.remote, 'for-each-ref', '--format=%(refname)'], dir)).out
      .trim()
      .split('\n');
    expect(refs).toContain('refs/heads/main');
    expect(refs.filter((r) => /^refs\/pull\/\d+\/head$/.test(r))).toHaveLength(15);
    expect(repo.prs.map((p) => p.number)).toEqual(Array.from({ length: 15 }, (_v, i) => i + 1));
    for (const pr of [repo.prs[0]!, repo.prs[10]!]) {
      const log = await run(
        'git',
        ['--git-dir', repo.remote, 'log', '-1', '--format=%P|%s|%an', `refs/pull/${pr.number}/head`],
        dir,
      );
      expect(log.out.trim()).toBe(`${repo.baseSha}|${pr.title}|${pr.author}`);
    }
  });

  it('says which PRs fail and which conflict, and the files agree', () => {
    const prs = demoPrs();
    expect(prs.filter((p) => p.outcome === 'fail').map((p) => p.number)).toEqual([4, 9, 13]);
    expect(prs.filter((p) => p.outcome === 'conflict').map((p) => p.number)).toEqual([11]);
    for (const p of prs.filter((x) => x.outcome === 'fail')) expect(Object.values(p.files)).toEqual(['broken\n']);
    expect(Object.keys(prs[5]!.files)).toEqual(['settings.conf']);
    expect(Object.keys(prs[10]!.files)).toEqual(['settings.conf']);
  });

  it('runs a test that passes on main and a good PR and fails on a breaking PR', async () => {
    const [main, good, bad] = await Promise.all([
      testAt('refs/heads/main'),
      testAt('refs/pull/1/head'),
      testAt('refs/pull/4/head'),
    ]);
    expect(main.code, main.out).toBe(0);
    expect(good.code, good.out).toBe(0);
    expect(good.out).toContain('ok    features/add-product-search.txt');
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('FAIL  features/add-gift-cards.txt');
  });

  it('has two PRs that conflict with each other and not with main', async () => {
    const conflict = await run(
      'git',
      ['--git-dir', repo.remote, 'merge-tree', '--write-tree', 'refs/pull/6/head', 'refs/pull/11/head'],
      dir,
    );
    expect(conflict.code).toBe(1);
    expect(conflict.out).toContain('settings.conf');
    const clean = await run(
      'git',
      ['--git-dir', repo.remote, 'merge-tree', '--write-tree', 'refs/pull/6/head', 'refs/pull/1/head'],
      dir,
    );
    expect(clean.code, clean.out).toBe(0);
  });

  it('replaces a repository left by an earlier run', async () => {
    const again = await buildDemoRepo(dir);
    expect(again.remote).toBe(repo.remote);
    const refs = (
      await run('git', ['--git-dir', again.remote, 'for-each-ref', '--format=%(refname)', 'refs/pull'], dir)
    ).out
      .trim()
      .split('\n');
    expect(refs).toHaveLength(15);
    repo = again;
  });
});

describe('the demo repository of the parallel queue', () => {
  it('has three areas of three PRs (one batch per lane), one PR that breaks its batch, one without area', async () => {
    const prs = demoPrs(API);
    const areas: Record<string, number[]> = {};
    for (const p of prs) areas[p.area] = [...(areas[p.area] ?? []), p.number];
    expect(areas).toEqual({ billing: [1, 2, 3], search: [4, 5, 6], auth: [7, 8, 9], '': [10] });
    expect(prs.filter((p) => p.outcome === 'fail').map((p) => p.number)).toEqual([2]);
    const api = await buildDemoRepo(dir, API);
    expect(api.remote).toBe(path.join(dir, 'api.git'));
    const [main, broken] = await Promise.all([testAtIn(api, 'refs/heads/main'), testAtIn(api, 'refs/pull/2/head')]);
    expect(main.code, main.out).toBe(0);
    expect(broken.code).toBe(1);
    expect(broken.out).toContain('FAIL  features/add-refunds.txt');
  });
});

describe('greenline demo (the command)', () => {
  it('has help with examples', async () => {
    requireBuilt();
    const r = await runCli(['demo', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ greenline demo/);
    expect(r.stdout).toContain('--data-dir <dir>');
  });

  it('refuses a data dir it did not make, saying what to do, and leaves it alone', async () => {
    const foreign = await mkdtemp(path.join(dir, 'foreign-'));
    await writeFile(path.join(foreign, 'precious.txt'), 'keep me\n');
    const r = await runCli(['demo', '--port', '0', '--data-dir', foreign]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('was not made by greenline demo; pass an empty or new directory with --data-dir');
    expect((await run('cat', ['precious.txt'], foreign)).out).toBe('keep me\n');
  });
});
