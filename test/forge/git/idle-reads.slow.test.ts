/**
 * What reading PRs costs in git processes, counted by git itself (GIT_TRACE2_EVENT: one `start`
 * event per process, in the environment every git process greenline starts inherits): a read where
 * no ref moved is one look at the remote, and `merge-tree` runs once per (target sha, head sha).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitForge, type GitForge } from '../../../src/forge/git/index.js';
import { appWithLine, makeGitFixture, type GitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let trace: string;
let forge: GitForge;

beforeEach(async () => {
  fx = await makeGitFixture();
  trace = path.join(fx.root, 'trace.json');
  writeFileSync(trace, '');
  process.env.GIT_TRACE2_EVENT = trace;
  forge = createGitForge({ dataDir: fx.dataDir, logger });
});
afterEach(async () => {
  delete process.env.GIT_TRACE2_EVENT;
  await fx.cleanup();
});

/** The git commands this process started (not their children) during `work`, sorted. */
async function gitCommands(work: () => Promise<unknown>): Promise<string[]> {
  const from = readFileSync(trace).length;
  await work();
  const commands: string[] = [];
  for (const line of readFileSync(trace).subarray(from).toString('utf8').split('\n')) {
    if (!line.includes('"event":"start"')) continue;
    const e = JSON.parse(line) as { sid: string; argv: string[] };
    if (e.sid.includes('/')) continue; // started by another git process
    const argv = e.argv.slice(1);
    while (argv[0] === '-C') argv.splice(0, 2);
    commands.push(argv[0]!);
  }
  return commands.sort();
}

/** What the poller asks of a queue of `main` holding PRs 1..3. */
async function readQueue(): Promise<void> {
  await forge.getBranchSha(fx.binding(), 'main');
  for (const n of [1, 2, 3]) await forge.getPullRequest(fx.binding(), n, 'main');
}

/** The next read looks at the remote again (what a push notification or the next poll does). */
const nextPoll = () => forge.refsMoved(fx.binding());

describe('git forge: a read costs what changed', () => {
  beforeEach(async () => {
    for (const n of [1, 2, 3]) await fx.openPr(n, { [`pr${n}.txt`]: `${n}\n` });
  });

  it('a read where no ref moved is one ls-remote, and nothing else', async () => {
    const first = await gitCommands(readQueue);
    expect(first.filter((c) => c === 'merge-tree')).toHaveLength(3);
    expect(first).toContain('fetch');
    for (let poll = 0; poll < 3; poll++) {
      nextPoll();
      expect(await gitCommands(readQueue)).toEqual(['ls-remote']);
    }
  });

  it('a PR pushed to is fetched and merged again alone; the other pairs are not worked out again', async () => {
    await readQueue();
    await fx.openPr(2, { 'pr2.txt': 'two, again\n' });
    nextPoll();
    const commands = await gitCommands(readQueue);
    expect(commands.filter((c) => c === 'merge-tree')).toEqual(['merge-tree']);
    expect(commands).toContain('fetch');
    expect(commands.filter((c) => c === 'ls-remote')).toHaveLength(1);
  });

  it('merge-tree never runs twice for the same (target, head): a target that moves and comes back costs nothing', async () => {
    await readQueue();
    const moved = await fx.commit(fx.baseSha, { 'src/app.txt': appWithLine(3, 'three') }, 'main moves');
    await fx.setRef('refs/heads/main', moved);
    nextPoll();
    expect((await gitCommands(readQueue)).filter((c) => c === 'merge-tree')).toHaveLength(3);
    await fx.setRef('refs/heads/main', fx.baseSha);
    nextPoll();
    const back = await gitCommands(readQueue);
    expect(back).not.toContain('merge-tree');
    expect(await forge.getPullRequest(fx.binding(), 1, 'main')).toMatchObject({ mergeability: 'mergeable' });
  });

  it('a burst of reads within the freshness window looks once', async () => {
    await readQueue();
    nextPoll();
    expect(await gitCommands(async () => Promise.all([readQueue(), readQueue()]))).toEqual(['ls-remote']);
  });
});
