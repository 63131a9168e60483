/**
 * Idle-cost benchmark (`npm run bench:scale`): a real `greenline serve` process on SQLite with the git
 * forge, repositories as real bare git repositories on disk, every queue paused with its PRs queued:
 * nothing changes anywhere. Measured over a window (default a minute), after a warm-up:
 * - CPU of the server and every process it starts (git and git's own children): the server's
 *   utime + stime + cutime + cstime from /proc/<pid>/stat, so every child it waited for counts, as
 *   a share of one core. Goal ≤ 0.05 of a core.
 * - RSS of the server (the highest VmRSS seen in the window). Goal ≤ 300 MiB.
 * - git processes started, by command (fetch, ls-remote, rev-parse, merge-tree, upload-pack …), read
 *   from git's own trace (GIT_TRACE2_EVENT), per poll interval.
 * Prints each figure beside its goal; never fails on them.
 *
 * Sizes: 100 repositories × 20 PRs, then 1,000 PRs spread over 100 repositories. Override with
 * `--repos N --prs N` (one size: N PRs in all, spread evenly), `--seconds S` (the window),
 * `--warmup S` and `--interval S` (the poll interval, default 15).
 *   npm run bench:scale -- --repos 20 --prs 200 --seconds 30
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { connectRepo } from '../src/app/admin/repo-admin.js';
import { createApiToken } from '../src/app/admin/tokens.js';
import { openStore } from '../src/store/connect.js';
import { CLI_ARGS } from '../test/cli/run-cli.js';
import { makeTempDirSync, removeTempDir } from '../test/helpers/temp-dir.js';

const { values: flags } = parseArgs({
  options: {
    repos: { type: 'string' },
    prs: { type: 'string' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string' },
    interval: { type: 'string', default: '15' },
  },
});
const positive = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got "${v}"`);
  return n;
};
const SECONDS = positive('seconds', flags.seconds)!;
const INTERVAL_S = positive('interval', flags.interval)!;
/** Long enough for every queue to be read once after its PRs were queued. */
const WARMUP_S = positive('warmup', flags.warmup) ?? 2 * INTERVAL_S;
const CPU_GOAL = 0.05;
const RSS_GOAL_MIB = 300;
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

interface Size {
  repos: number;
  prs: number;
}
const sizes: Size[] =
  flags.repos || flags.prs
    ? [{ repos: positive('repos', flags.repos) ?? 100, prs: positive('prs', flags.prs) ?? 2_000 }]
    : [
        { repos: 100, prs: 2_000 },
        { repos: 100, prs: 1_000 },
      ];

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
};
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim();

/** A bare repository with `main` and PRs 1..n (`refs/pull/{n}/head`), each adding its own file. */
function templateRepository(root: string, n: number): string {
  const bare = join(root, 'template.git');
  const work = join(root, 'template-work');
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(root, 'init', '-q', '-b', 'main', work);
  writeFileSync(join(work, 'README'), 'hello\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'initial');
  const specs = ['HEAD:refs/heads/main'];
  for (let i = 1; i <= n; i++) {
    writeFileSync(join(work, `change-${i}.txt`), `${i}\n`);
    git(work, 'add', '.');
    const tree = git(work, 'write-tree');
    const sha = git(work, 'commit-tree', tree, '-p', 'HEAD', '-m', `Change ${i}`);
    git(work, 'rm', '-q', '--cached', `change-${i}.txt`);
    specs.push(`${sha}:refs/pull/${i}/head`);
  }
  git(work, 'push', '-q', bare, ...specs);
  return bare;
}

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function serve(dataDir: string, trace: string): Promise<Server> {
  const child = spawn(
    process.execPath,
    [
      ...CLI_ARGS,
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--poll-interval',
      String(INTERVAL_S),
      '--log-level',
      'warn',
    ],
    { env: { ...process.env, GIT_TRACE2_EVENT: trace }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  for (let i = 0; i < 600; i++) {
    const m = /listening on (\S+)/.exec(out);
    if (m) return { child, url: m[1]!, output: () => out };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`serve did not start:\n${out}`);
}

async function call(s: Server, token: string, op: string, body: unknown): Promise<void> {
  const res = await fetch(`${s.url}/v1/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${op} answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

/** CPU seconds of the process and of every child it waited for, and its RSS in MiB. */
function usage(pid: number): { cpuS: number; rssMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3; utime..cstime are 14..17.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuS: ticks / CLK_TCK, rssMiB: Number(rss?.[1] ?? 0) / 1024 };
}

/** git processes started since byte `from` of the trace, by command. */
function gitStarts(trace: string, from: number): Map<string, number> {
  const byCommand = new Map<string, number>();
  if (!existsSync(trace)) return byCommand;
  const text = readFileSync(trace).subarray(from).toString('utf8');
  for (const line of text.split('\n')) {
    if (!line.includes('"event":"start"')) continue;
    const argv = (JSON.parse(line) as { argv: string[] }).argv;
    // `git -C dir fetch …`, or a dashed form such as `git-upload-pack '/path'`.
    const dashed = /(?:^|\/)git-([a-z-]+)$/.exec(argv[0] ?? '');
    let i = 1;
    while (argv[i] === '-C' || argv[i] === '-c') i += 2;
    const name = dashed ? dashed[1]! : (argv[i] ?? '?');
    byCommand.set(name, (byCommand.get(name) ?? 0) + 1);
  }
  return byCommand;
}

interface Result {
  size: Size;
  setupS: number;
  cpuCores: number;
  rssMiB: number;
  gitPerInterval: number;
  byCommand: [string, number][];
}

async function measure(size: Size): Promise<Result> {
  const root = makeTempDirSync('greenline-scale-');
  let server: Server | null = null;
  try {
    const perRepo = Math.ceil(size.prs / size.repos);
    const template = templateRepository(root, perRepo);
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const db = await openStore({ databaseUrl: null, dataDir });
    const repos: { name: string; prs: number }[] = [];
    let orgId = '';
    for (let r = 0; r < size.repos; r++) {
      const name = `repo-${String(r).padStart(4, '0')}`;
      const remote = join(root, 'remotes', `${name}.git`);
      cpSync(template, remote, { recursive: true });
      const row = await connectRepo(
        db,
        { org: 'bench', slug: `bench.example/team/${name}`, forge: 'git', remote, ciCommand: 'true' },
        Date.now(),
      );
      orgId = row.org_id;
      // PRs spread evenly: the first repositories take one more when they do not divide.
      repos.push({ name, prs: Math.floor(size.prs / size.repos) + (r < size.prs % size.repos ? 1 : 0) });
    }
    const { token } = await createApiToken(db, orgId, 'bench', Date.now());
    await db.destroy();

    const trace = join(root, 'git-trace.json');
    const started = Date.now();
    server = await serve(dataDir, trace);
    const s = server;
    // Queues paused, PRs queued: eight repositories at a time.
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let r = next++; r < repos.length; r = next++) {
        const key = { repo: { host: 'bench.example', owner: 'team', name: repos[r]!.name }, targetBranch: 'main' };
        await call(s, token, 'createQueue', key);
        await call(s, token, 'updateQueue', { ...key, state: 'PAUSED' });
        for (let n = 1; n <= repos[r]!.prs; n++)
          await call(s, token, 'submitPullRequest', { ...key, pr: { number: n } });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const setupS = (Date.now() - started) / 1000;
    await sleep(WARMUP_S * 1000);

    const pid = s.child.pid!;
    const traceFrom = existsSync(trace) ? statSync(trace).size : 0;
    const before = usage(pid);
    let rssMiB = before.rssMiB;
    const end = Date.now() + SECONDS * 1000;
    while (Date.now() < end) {
      await sleep(Math.min(1000, end - Date.now()));
      rssMiB = Math.max(rssMiB, usage(pid).rssMiB);
    }
    const after = usage(pid);
    const starts = gitStarts(trace, traceFrom);
    const total = [...starts.values()].reduce((a, b) => a + b, 0);
    return {
      size,
      setupS,
      cpuCores: (after.cpuS - before.cpuS) / SECONDS,
      rssMiB,
      gitPerInterval: (total * INTERVAL_S) / SECONDS,
      byCommand: [...starts].sort((a, b) => b[1] - a[1]),
    };
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server!.child.once('exit', resolve));
    }
    removeTempDir(root);
  }
}

const results: Result[] = [];
for (const size of sizes) results.push(await measure(size));

console.log(
  `Idle server cost (SQLite, git forge, queues paused with their PRs queued; poll interval ${INTERVAL_S} s, ` +
    `warm-up ${WARMUP_S} s, window ${SECONDS} s)\n`,
);
const perInterval = (n: number): string => ((n * INTERVAL_S) / SECONDS).toFixed(1);
for (const r of results) {
  const what = `${r.size.repos} repositories, ${r.size.prs} PRs`;
  console.log(`${what} (queued in ${r.setupS.toFixed(0)} s)`);
  console.log(
    `  CPU, server and children  goal ≤ ${CPU_GOAL} core  measured ${r.cpuCores.toFixed(3)} core  ${r.cpuCores <= CPU_GOAL ? 'met' : 'NO'}`,
  );
  console.log(
    `  RSS of the server         goal ≤ ${RSS_GOAL_MIB} MiB   measured ${r.rssMiB.toFixed(0)} MiB     ${r.rssMiB <= RSS_GOAL_MIB ? 'met' : 'NO'}`,
  );
  console.log(
    `  git processes per poll interval: ${r.gitPerInterval.toFixed(1)} (${(r.gitPerInterval / r.size.repos).toFixed(2)} per repository)`,
  );
  console.log(`    ${r.byCommand.map(([c, n]) => `${c} ${perInterval(n)}`).join(', ') || 'none'}`);
}
