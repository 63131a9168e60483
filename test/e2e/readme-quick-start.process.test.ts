/**
 * The README's quick start, run as a new user runs it. A fresh clone of this repository (its
 * committed HEAD: uncommitted changes are not part of it) in a fresh temporary directory is built and
 * started with `npm start` and every default — the data dir is the relative `./.greenline`; only the
 * port is changed, through its documented variable GREENLINE_PORT (0: a free port, read back from
 * the server's output). The bootstrap token is read from the server's output as a user reads it.
 *
 * The commands are not copied here: the `repo connect` and curl calls are EXTRACTED FROM README.md
 * (the ```sh block of "Quick start") and run with `sh` in the clone. Only placeholders are
 * substituted, each of which must be present: the token (`TOKEN=gl_...`), the remote path
 * (`/srv/git/web.git` → the relative `../remote.git`, so a relative --remote is exercised), the PR
 * number (`"number":42`) and the address (`http://127.0.0.1:8080` → the port the server chose). A
 * README edit that breaks a command, or drops a placeholder, fails this test.
 *
 * The remote is a real bare repository whose PRs are at refs/pull/<n>/head, and whose check is an npm
 * project, so that the README's own `--ci-command "npm ci && npm test"` runs literally on each test
 * commit (its package has no dependencies: `npm ci` needs no network).
 *
 * Install: `npm ci` would download and compile every dependency (minutes on a loaded machine, and
 * needs the registry). The clone instead gets a symlink to this repository's node_modules — the
 * dependencies `npm ci` installs from the same package-lock.json — and runs `npm run build`, which is
 * what `npm ci` runs last (the `prepare` script). Everything after that is the README's literally.
 * `npx greenline`, which the README says works too, installs the clone into npm's npx cache and runs
 * `prepare` once more: it must leave the built dist/, from which the server runs, as it is.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRemote } from './git-remote.js';
import type { Json } from '../helpers/json.js';
import { listeningAddress } from '../helpers/listening.js';
import { waitUntil } from '../helpers/wait-until.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SLUG = 'github.com/acme/web';
const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a user's shell: none of the outer process's GREENLINE_* settings. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GREENLINE_')));
  return { ...env, ...extra };
}

function run(cmd: string, args: string[], cwd: string, env = userEnv(), timeoutMs = 240_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The commands of the quick start's ```sh block that connects a repository, continuation lines joined. */
function quickStartCommands(readme: string): string[] {
  const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no "## Quick start" section');
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes('repo connect'));
  if (!block) throw new Error('The quick start has no ```sh block with `repo connect`');
  return block
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** `text` with `placeholder` replaced; the placeholder must be there. */
function substitute(text: string, placeholder: string, value: string): string {
  expect(text, `the README's command lost its placeholder ${placeholder}`).toContain(placeholder);
  return text.split(placeholder).join(value);
}

/** The README's block, ready to run: the token line, and each command found by what it does. */
interface QuickStart {
  tokenLine: string;
  connect: string;
  createQueue: string;
  submit: (pr: number) => string;
  get: (pr: number) => string;
}

function prepare(commands: string[], token: string, remote: string, url: string): QuickStart {
  const one = (what: string): string => {
    const found = commands.filter((c) => c.includes(what));
    expect(found, `the quick start should have one command with ${what}`).toHaveLength(1);
    return found[0]!;
  };
  const curl = (endpoint: string) => substitute(one(`/v1/${endpoint}`), 'http://127.0.0.1:8080', url);
  const withPr = (command: string) => (pr: number) => substitute(command, '"number":42', `"number":${pr}`);
  return {
    tokenLine: substitute(one('TOKEN='), 'TOKEN=gl_...', `TOKEN=${token}`),
    connect: substitute(one('repo connect'), '/srv/git/web.git', remote),
    createQueue: curl('createQueue'),
    submit: withPr(curl('submitPullRequest')),
    get: withPr(curl('getSubmittedPullRequest')),
  };
}

/** A package whose `npm test` fails when any features/*.txt does not say `works`. */
const PACKAGE = {
  'package.json': `${JSON.stringify({ name: 'web', version: '1.0.0', private: true, scripts: { test: 'node test.js' } })}\n`,
  'package-lock.json': `${JSON.stringify({ name: 'web', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'web', version: '1.0.0' } } })}\n`,
  'test.js': [
    "const fs = require('node:fs');",
    "for (const f of fs.existsSync('features') ? fs.readdirSync('features') : []) {",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of the package's test script, template literals included
    "  if (fs.readFileSync(`features/${f}`, 'utf8').trim() !== 'works') { console.error(`${f} is broken`); process.exit(1); }",
    '}',
    '',
  ].join('\n'),
};

describe('the README quick start, run literally on a fresh clone', () => {
  let dir: string;
  let clone: string;
  let remote: GitRemote;
  let server: ChildProcess | undefined;
  let serverOut = '';
  let serverErr = '';
  let qs: QuickStart;
  let url: string;
  let token: string;

  /** Runs README lines with `sh` in the clone, as typed in one terminal. */
  const sh = (...lines: string[]): Promise<Run> => run('sh', ['-c', lines.join('\n')], clone);
  const readmeJson = async (command: string): Promise<Json> => {
    const r = await sh(qs.tokenLine, command);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const story = (): string => `server stdout:\n${serverOut}\nserver stderr (last 4000):\n${serverErr.slice(-4000)}`;

  async function waitTerminal(pr: number): Promise<Json> {
    let got: Json;
    return waitUntil(
      `PR #${pr} to leave the queue`,
      240_000,
      async () => {
        got = await readmeJson(qs.get(pr));
        return TERMINAL.includes(String(got.state).toUpperCase()) ? got : undefined;
      },
      () => `${got?.state}\n${story()}`,
      1_000,
    );
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'greenline-readme-'));
    clone = path.join(dir, 'greenline');
    const head = (await run('git', ['rev-parse', 'HEAD'], ROOT)).stdout.trim();
    const cloned = await run('git', ['clone', '--quiet', '--no-checkout', ROOT, clone], dir);
    expect(cloned.code, cloned.stderr).toBe(0);
    expect((await run('git', ['checkout', '--quiet', head], clone)).code).toBe(0);
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    const built = await run('npm', ['run', 'build'], clone);
    expect(built.code, built.stdout + built.stderr).toBe(0);

    // The remote: main holds the package; PRs 1 and 2 add working features, PR 3 a broken one, and
    // PR 4 makes exactly the change of PR 1 (queued behind it, it has nothing left to merge).
    remote = await GitRemote.create(dir, PACKAGE);
    await remote.openPr(1, { 'features/one.txt': 'works\n' }, 'Add feature one');
    await remote.openPr(2, { 'features/two.txt': 'works\n' }, 'Add feature two');
    await remote.openPr(3, { 'features/three.txt': 'broken\n' }, 'Add feature three');
    await remote.openPr(4, { 'features/one.txt': 'works\n' }, 'Add feature one again');

    // `npm start` in the clone, every default but the port.
    server = spawn('npm', ['start'], {
      cwd: clone,
      env: userEnv({ GREENLINE_PORT: '0' }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d: Buffer) => {
      serverOut += d.toString();
    });
    server.stderr!.on('data', (d: Buffer) => {
      serverErr += d.toString();
    });
    const address = await listeningAddress(server, () => serverOut, 60_000, /greenline listening on (http:\/\/\S+)/);
    if (!address) throw new Error(`npm start did not start the server\n${story()}`);
    url = address;
    token = /^Token: (gl_\S+)$/m.exec(serverOut)?.[1] ?? '';
    expect(token, 'the first start prints a bootstrap token').toMatch(/^gl_/);
    qs = prepare(quickStartCommands(readFileSync(path.join(clone, 'README.md'), 'utf8')), token, '../remote.git', url);
  }, 300_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      process.kill(-server.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-server!.pid!, 'SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('connects the repository with a relative --remote, stored absolute', async () => {
    const r = await sh(qs.tokenLine, qs.connect);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `Connected ${SLUG} to organization default (forge git, remote ${remote.dir}, resolved from ../remote.git)`,
    );
  }, 120_000);

  it('creates the queue and merges good PRs on the remote; a failing one ends FAILED; a PR with nothing left to merge fails', async () => {
    expect(await readmeJson(qs.createQueue)).toEqual({});
    for (const pr of [1, 2, 3, 4]) expect(await readmeJson(qs.submit(pr))).toEqual({});

    const states = Object.fromEntries(
      await Promise.all([1, 2, 3, 4].map(async (pr) => [pr, (await waitTerminal(pr)).state])),
    );
    expect(states, story()).toEqual({ 1: 'MERGED', 2: 'MERGED', 3: 'FAILED', 4: 'FAILED' });

    expect(await remote.readFile('main', 'features/one.txt')).toBe('works');
    expect(await remote.readFile('main', 'features/two.txt')).toBe('works');
    expect(await remote.readFile('main', 'features/three.txt')).toBeNull();
    // Two PRs merged: two commits on main, none of them empty.
    const commits = await remote.targetCommits();
    expect(commits.map((c) => c.prNumber).sort()).toEqual([1, 2]);
    for (const c of commits)
      expect(
        await remote.git('diff', '--quiet', `${c.sha}^`, c.sha).then(
          () => 'empty',
          () => 'changes',
        ),
      ).toBe('changes');

    // Why they failed, in each PR's timeline: PR 3's CI failed; PR 4's change is already in what it
    // would be merged onto.
    const timeline = async (pr: number) =>
      (await readmeJson(substitute(qs.get(pr), `"number":${pr}}`, `"number":${pr}},"includeTimeline":true`))).timeline;
    expect((await timeline(3))[0]).toMatchObject({ toState: 'FAILED', reason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    const four = (await timeline(4))[0];
    expect(four).toMatchObject({ toState: 'FAILED', reason: 'START_TEST_RUN_ALREADY_IN_TARGET' });
    expect(four.detail).toMatch(/PR #4 changes nothing/);
  }, 300_000);

  it('shows the failed PR as FAILED, and why, with `npx greenline pr status`, without rebuilding dist/', async () => {
    const built = statSync(path.join(clone, 'dist', 'cli.js')).mtimeMs;
    const r = await run(
      'npx',
      ['greenline', 'pr', 'status', '3', '--repo', SLUG, '--branch', 'main'],
      clone,
      userEnv({ GREENLINE_URL: url, GREENLINE_TOKEN: token }),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^State:\s+FAILED\b/m);
    // Why it failed, in words: the failed required status, its description, and how to read its log.
    expect(r.stdout).toMatch(/^Why:\s+Failed: a required CI status failed\./m);
    expect(r.stdout).toMatch(/^Detail:\s+required status "greenline\/ci" reported failure/m);
    expect(r.stdout).toMatch(/greenline test-run log /);
    expect(statSync(path.join(clone, 'dist', 'cli.js')).mtimeMs).toBe(built);
  }, 120_000);

  it('adds nothing to main for a merged PR submitted again: 400 PR_ALREADY_MERGED from curl and from `node dist/cli.js pr submit`', async () => {
    const before = await remote.sha('main');
    const answer = await readmeJson(qs.submit(1));
    expect(answer.error).toMatchObject({ code: 'PR_ALREADY_MERGED' });
    expect(answer.error.message).toMatch(/PR #1 is already merged/);
    const status = await fetch(`${url}/v1/submitPullRequest`, {
      method: 'POST',
      headers: { 'x-api-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        targetBranch: 'main',
        pr: { number: 2 },
      }),
    });
    expect(status.status).toBe(400);

    const cli = await run(
      process.execPath,
      ['dist/cli.js', 'pr', 'submit', '1', '--repo', SLUG, '--branch', 'main'],
      clone,
      userEnv({ GREENLINE_URL: url, GREENLINE_TOKEN: token }),
    );
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toMatch(/PR #1 is already merged.*PR_ALREADY_MERGED/s);

    expect((await readmeJson(qs.get(1))).state).toBe('MERGED');
    expect(await remote.sha('main')).toBe(before);
  }, 120_000);
});

// The test's own placeholders are checked against the README even when the server is not needed.
describe('the README quick start block', () => {
  it('has the commands this test runs, with their placeholders', () => {
    const commands = quickStartCommands(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const qs = prepare(commands, 'gl_x', '../remote.git', 'http://127.0.0.1:1');
    expect(qs.connect).toContain('--remote ../remote.git');
    expect(qs.submit(7)).toContain('"number":7');
  });
});
