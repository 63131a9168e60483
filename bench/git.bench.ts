/**
 * Building test commits: merge-tree + commit-tree in a bare repository (what the git forge does)
 * vs the classic way, `git merge` in a work tree (reset to the base, then one merge per PR).
 *
 * Repository: 10,000 files; 20 PRs on main, each touching two files of its own and one line of a
 * file they all change (so every merge is a real three-way content merge). One test commit = the
 * chain of all 20 PRs. The work-tree baseline keeps one checkout and resets it between builds (its
 * cheapest form; a fresh checkout per build would be far slower). Goal: merge-tree ≥ 5× faster.
 *
 * Run: npm run bench:git [-- rounds]   (prints only; no thresholds enforced)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { git } from '../src/git/git.js';
import { buildMergeChain } from '../src/forge/git/merge-chain.js';
import type { RunPr } from '../src/engine/types.js';

const FILES = 10_000;
const PRS = 20;
const ROUNDS = Number(process.argv[2] ?? 5);
const SHARED = Array.from({ length: 2 * PRS }, (_, i) => `shared line ${i}`);

/** A fast-import stream: main with FILES files, then PR i on main at refs/pull/i/head. */
function importStream(): string {
  const parts: string[] = [];
  const data = (s: string): string => `data ${Buffer.byteLength(s)}\n${s}\n`;
  const commit = (ref: string, msg: string, from: string | null, files: Record<string, string>, t: number): void => {
    parts.push(
      `commit ${ref}\ncommitter Bench <bench@example.com> ${t} +0000\n${data(msg)}${from ? `from ${from}\n` : ''}`,
    );
    for (const [f, c] of Object.entries(files)) parts.push(`M 100644 inline ${f}\n${data(c)}`);
  };
  const base: Record<string, string> = { 'shared.txt': `${SHARED.join('\n\n\n')}\n` };
  for (let i = 0; i < FILES - 1; i++) base[`src/m${Math.floor(i / 100)}/f${i}.txt`] = `file ${i}\n`.repeat(5);
  commit('refs/heads/main', 'base', null, base, 1_700_000_000);
  for (let n = 1; n <= PRS; n++) {
    const shared = SHARED.map((l, i) => (i === 2 * n - 1 ? `changed by PR ${n}` : l));
    commit(
      `refs/pull/${n}/head`,
      `PR ${n}`,
      'refs/heads/main',
      {
        'shared.txt': `${shared.join('\n\n\n')}\n`,
        [`src/m${n}/f${n * 100 + 1}.txt`]: `edited by PR ${n}\n`,
        [`src/new/pr${n}.txt`]: `added by PR ${n}\n`,
      },
      1_700_000_000 + n * 60,
    );
  }
  return parts.join('');
}

async function time(fn: () => Promise<void>): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'greenline-bench-git-'));
  try {
    const bare = path.join(root, 'repo.git');
    const work = path.join(root, 'work');
    await git(['init', '--bare', '--quiet', bare]);
    await git(['fast-import', '--quiet'], { cwd: bare, input: importStream() });
    await git(['clone', '--quiet', '--no-checkout', bare, work]);
    await git(['fetch', '--quiet', 'origin', '+refs/pull/*/head:refs/pull/*/head'], { cwd: work });
    const base = await git(['rev-parse', 'refs/heads/main'], { cwd: bare });
    const prs: RunPr[] = [];
    for (let n = 1; n <= PRS; n++)
      prs.push({ number: n, headSha: await git(['rev-parse', `refs/pull/${n}/head`], { cwd: bare }) });
    const env = { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@x', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@x' };
    await git(['checkout', '--quiet', '--detach', base], { cwd: work });

    // A new committer per build: every build writes new commits, as a new run on a new base would.
    const mergeTreeBuild = async (round: number): Promise<void> => {
      const res = await buildMergeChain(bare, { name: `bench ${round}`, email: 'bench@example.com' }, base, prs);
      if (!res.ok) throw new Error(res.detail);
    };
    const workTreeBuild = async (round: number): Promise<void> => {
      await git(['reset', '--quiet', '--hard', base], { cwd: work });
      for (const pr of prs) {
        await git(['merge', '--quiet', '--no-ff', '--no-edit', '-m', `Merge #${pr.number} (${round})`, pr.headSha], {
          cwd: work,
          env,
        });
      }
    };

    await mergeTreeBuild(-1);
    await workTreeBuild(-1);
    let mergeTreeMs = 0;
    let workTreeMs = 0;
    for (let r = 0; r < ROUNDS; r++) {
      mergeTreeMs += await time(() => mergeTreeBuild(r));
      workTreeMs += await time(() => workTreeBuild(r));
    }
    const rate = (ms: number): string =>
      `${((ROUNDS * 1000) / ms).toFixed(2)} test commits/s (${(ms / ROUNDS).toFixed(0)} ms per chain of ${PRS} PRs)`;
    const ratio = workTreeMs / mergeTreeMs;
    console.log(`repository: ${FILES} files, ${PRS} PRs per test commit, ${ROUNDS} rounds`);
    console.log(`merge-tree + commit-tree (bare):  ${rate(mergeTreeMs)}`);
    console.log(`checkout + git merge (work tree): ${rate(workTreeMs)}`);
    console.log(`ratio: ${ratio.toFixed(1)}x (goal >= 5x: ${ratio >= 5 ? 'met' : 'NOT met'})`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
